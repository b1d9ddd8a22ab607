-- CreateIndex
CREATE INDEX "audit_log_workspaceId_mode_action_at_id_idx" ON "audit_log"("workspaceId", "mode", "action", "at", "id");

-- CreateIndex
CREATE INDEX "audit_log_workspaceId_mode_targetId_at_id_idx" ON "audit_log"("workspaceId", "mode", "targetId", "at", "id");
