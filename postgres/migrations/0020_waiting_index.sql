-- Issue 45: the anchor queue's index holds the states a record waits in (seald.WaitingStates), not the final
-- ones. A step that changes a record's state writes a new entry in it, so the last step, to COMPLETED, wrote
-- one for every record, for a state nothing looks up by that index. The statements that walk it (the anchor
-- queue, the counts of waiting records) name those states as literals, so that the planner sees they are the
-- index's. The name stays.
DROP INDEX record_states_anchor_queue;
CREATE INDEX record_states_anchor_queue ON record_states (state, network, created_at)
    WHERE state IN ('PENDING', 'IPFS_STORED', 'ANCHOR_SUBMITTED', 'ANCHORED', 'EMAIL_SENT');
