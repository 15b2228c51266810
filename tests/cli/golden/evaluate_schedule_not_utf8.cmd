args: evaluate --schedule \xff
exit: 1
stderr: parallel\.schedule: unknown schedule ".*"; use gpipe, 1f1b
stdout: ignore
