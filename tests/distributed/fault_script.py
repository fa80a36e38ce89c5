"""Faulty jobs for test_faults.py: ``argv[1]`` names the fault (on rank 1; rank 0 waits in an all-reduce)."""

import sys

import vfw.torch as torch
import vfw.torch.distributed as dist


def main(fault):
    dist.init_process_group("gloo")
    if dist.get_rank() == 1:
        if fault == "raise":
            raise ValueError("bad batch on rank 1")
        if fault == "exit":
            sys.exit(3)
    dist.all_reduce(torch.ones(4))
    print(f"rank {dist.get_rank()} passed the all-reduce")


if __name__ == "__main__":
    main(sys.argv[1])
