args: recommend --frobnicate 3
exit: 2
stderr: unknown option --frobnicate
stdout: ignore
