"""Faulty jobs for test_faults.py: ``argv[1]`` names the fault (on rank 1; rank 0 waits in an all-reduce, or for
an irecv rank 1 never sends)."""

import sys
import time

import vfw.torch as torch
import vfw.torch.distributed as dist


def main(fault):
    dist.init_process_group("gloo")
    if fault == "irecv":  # rank 0 waits for a message rank 1 never sends
        if dist.get_rank() == 1:
            time.sleep(120)
        dist.irecv(torch.zeros(4), src=1).wait()
        print(f"rank {dist.get_rank()} received")
        return
    if dist.get_rank() == 1:
        if fault == "raise":
            raise ValueError("bad batch on rank 1")
        if fault == "exit":
            sys.exit(3)
    dist.all_reduce(torch.ones(4))
    print(f"rank {dist.get_rank()} passed the all-reduce")


if __name__ == "__main__":
    main(sys.argv[1])
