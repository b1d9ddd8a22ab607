-- AlterTable
ALTER TABLE "prices" ADD COLUMN     "divideBy" INTEGER,
ADD COLUMN     "meterId" TEXT,
ADD COLUMN     "quantityRounding" TEXT;

-- AlterTable
ALTER TABLE "subscriptions" ADD COLUMN     "meteredPriceIds" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- Metered prices (docs/usage.md, Metered prices): the meter of this workspace and mode; the two
-- metered-only columns set exactly when a meter is.
ALTER TABLE prices ADD CONSTRAINT prices_meter_fkey
  FOREIGN KEY ("workspaceId", mode, "meterId") REFERENCES meters ("workspaceId", mode, id);
ALTER TABLE prices ADD CONSTRAINT prices_metered_check CHECK (
  ("meterId" IS NULL AND "divideBy" IS NULL AND "quantityRounding" IS NULL)
  OR ("meterId" IS NOT NULL AND model IN ('usage', 'tiered', 'volume')
      AND "divideBy" BETWEEN 1 AND 1000000000 AND "quantityRounding" IN ('half_up', 'up', 'down')));

-- One active price per (plan, currency, model, meter): a plan holds one licensed base price and
-- metered prices on distinct meters per currency.
DROP INDEX prices_one_active_key;
CREATE UNIQUE INDEX prices_one_active_key ON prices ("workspaceId", mode, "planId", currency, model, COALESCE("meterId", ''))
  WHERE active;
