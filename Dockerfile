# The svc image: TypeScript runs through tsx (a runtime dependency), so there is no build step.
# Used by docker-compose.yml for the api, worker and migrate services.
FROM node:24-slim

WORKDIR /app
# HOST: the server binds loopback unless told; a container is reached through its own interface.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000

# Dependencies first (cached while only sources change). `npm ci` runs the postinstall script,
# which generates the Prisma client from prisma/schema, so those files come along.
COPY package.json package-lock.json prisma.config.ts ./
COPY scripts/prisma-generate.mjs scripts/
COPY prisma ./prisma
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY . .

USER node
EXPOSE 4000
# Server and worker in one process; compose runs them as separate services instead.
# Needs DATABASE_URL, SVC_MASTER_KEY (required when NODE_ENV=production) and SVC_APP_PASSWORD
# (the tenant role's password; README, "Database roles").
CMD ["node", "bin/svc.js", "start"]
