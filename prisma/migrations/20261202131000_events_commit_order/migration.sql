-- DropIndex
DROP INDEX "events_workspaceId_occurredAt_id_idx";

-- DropIndex
DROP INDEX "events_workspaceId_type_occurredAt_id_idx";

-- DropIndex
DROP INDEX "events_workspaceId_objectId_occurredAt_id_idx";

-- CreateIndex
CREATE INDEX "events_workspaceId_publishedPosition_position_idx" ON "events"("workspaceId", "publishedPosition", "position");

-- CreateIndex
CREATE INDEX "events_workspaceId_type_publishedPosition_position_idx" ON "events"("workspaceId", "type", "publishedPosition", "position");

-- CreateIndex
CREATE INDEX "events_workspaceId_objectId_publishedPosition_position_idx" ON "events"("workspaceId", "objectId", "publishedPosition", "position");
