args: evaluate --json --no-groups --tp 3
exit: 1
stderr: parallel.tp: heads=64 is not divisible by tp=3
