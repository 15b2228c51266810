args: schedule --pp 4096 --microbatches 1048576 --schedule 1f1b
exit: 2
stderr: the simulator's limit is 4000000
stdout: ignore
memory_mb: 1024
seconds: 30
