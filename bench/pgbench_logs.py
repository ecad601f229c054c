#!/usr/bin/env python3
"""Counts the transactions in pgbench's transaction logs (-l), per-transaction or aggregated
(--aggregate-interval), as pgbench 15 writes them and as fairbench writes them (--log):

    python3 bench/pgbench_logs.py PREFIX [PREFIX ...]

reads every PREFIX.* file and prints one JSON object per prefix: successful transactions,
failed ones (per-transaction logs always; aggregate logs with --failures-detailed), skipped
ones, files and lines. Both tools' logs go through the same code, so their counts can be
set against each tool's own summary.
"""
import glob
import json
import re
import sys


def count(prefix):
    c = {"prefix": prefix, "files": 0, "lines": 0, "transactions": 0, "failed": 0, "skipped": 0, "format": None}
    for path in sorted(glob.glob(glob.escape(prefix) + ".*")):
        # PREFIX.PID and PREFIX.PID.THREAD only.
        if not re.fullmatch(r"\.\d+(\.\d+)?", path[len(prefix):]):
            continue
        c["files"] += 1
        with open(path) as f:
            for line in f:
                fields = line.split()
                if not fields:
                    continue
                c["lines"] += 1
                if len(fields) >= 15:
                    # interval_start num_transactions sum sum2 min max lag_sum lag_sum2 lag_min
                    # lag_max skipped retried retries serialization_failures deadlock_failures
                    c["format"] = "aggregate"
                    c["transactions"] += int(fields[1])
                    c["skipped"] += int(fields[10])
                    c["failed"] += int(fields[13]) + int(fields[14])
                else:
                    # client_id transaction_no time script_no time_epoch time_us [lag] [retries]
                    c["format"] = "transaction"
                    what = fields[2]
                    if what.isdigit():
                        c["transactions"] += 1
                    elif what == "skipped":
                        c["skipped"] += 1
                    else:
                        c["failed"] += 1
    return c


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for prefix in sys.argv[1:]:
        print(json.dumps(count(prefix)))


if __name__ == "__main__":
    main()
