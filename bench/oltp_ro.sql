-- sysbench's OLTP read-only transaction as a pgbench script over pgbench_accounts:
-- 10 point selects, a range, a SUM over a range, an ordered range and a DISTINCT range.
\set r1 random(1, 100000 * :scale)
\set r2 random(1, 100000 * :scale)
\set r3 random(1, 100000 * :scale)
\set r4 random(1, 100000 * :scale)
\set r5 random(1, 100000 * :scale)
\set r6 random(1, 100000 * :scale)
\set r7 random(1, 100000 * :scale)
\set r8 random(1, 100000 * :scale)
\set r9 random(1, 100000 * :scale)
\set r10 random(1, 100000 * :scale)
\set lo random(1, 100000 * :scale - 99)
\set hi :lo + 99
BEGIN;
SELECT abalance FROM pgbench_accounts WHERE aid = :r1;
SELECT abalance FROM pgbench_accounts WHERE aid = :r2;
SELECT abalance FROM pgbench_accounts WHERE aid = :r3;
SELECT abalance FROM pgbench_accounts WHERE aid = :r4;
SELECT abalance FROM pgbench_accounts WHERE aid = :r5;
SELECT abalance FROM pgbench_accounts WHERE aid = :r6;
SELECT abalance FROM pgbench_accounts WHERE aid = :r7;
SELECT abalance FROM pgbench_accounts WHERE aid = :r8;
SELECT abalance FROM pgbench_accounts WHERE aid = :r9;
SELECT abalance FROM pgbench_accounts WHERE aid = :r10;
SELECT abalance FROM pgbench_accounts WHERE aid BETWEEN :lo AND :hi;
SELECT SUM(abalance) FROM pgbench_accounts WHERE aid BETWEEN :lo AND :hi;
SELECT abalance FROM pgbench_accounts WHERE aid BETWEEN :lo AND :hi ORDER BY abalance;
SELECT DISTINCT abalance FROM pgbench_accounts WHERE aid BETWEEN :lo AND :hi ORDER BY abalance;
COMMIT;
