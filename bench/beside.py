"""What bench/gotpc-beside.sh's `timed` wrote: each named command's wall and CPU seconds."""


def times(work):
    """{name: (wall s, user + system s)} from WORK/times, one line per `timed` command."""
    out = {}
    for line in open(f"{work}/times"):
        name, wall, user, sys_ = line.split()[:4]
        out[name] = (float(wall), float(user) + float(sys_))
    return out
