-- Placeholder on branch "nodes" only, so that V4 runs there: the other helpers' V3 replaces it at merge.
SELECT 1;
