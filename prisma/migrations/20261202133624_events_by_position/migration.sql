-- DropIndex
DROP INDEX "events_workspaceId_occurredAt_id_idx";

-- DropIndex
DROP INDEX "events_workspaceId_type_occurredAt_id_idx";

-- DropIndex
DROP INDEX "events_workspaceId_objectId_occurredAt_id_idx";

-- CreateIndex
CREATE INDEX "events_workspaceId_position_idx" ON "events"("workspaceId", "position");

-- CreateIndex
CREATE INDEX "events_workspaceId_type_position_idx" ON "events"("workspaceId", "type", "position");

-- CreateIndex
CREATE INDEX "events_workspaceId_objectId_position_idx" ON "events"("workspaceId", "objectId", "position");
