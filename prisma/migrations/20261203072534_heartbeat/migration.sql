-- CreateTable
CREATE TABLE "svc_heartbeat" (
    "id" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "svc_heartbeat_pkey" PRIMARY KEY ("id")
);
