args: frobnicate
exit: 2
stderr: unknown command
stdout: ignore
