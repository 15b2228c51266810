args: schedule --pp 3 --microbatches 8 --schedule dualpipe
exit: 2
stderr: even
stdout: ignore
