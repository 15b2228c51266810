args: evaluate --schedule ÿ
exit: 1
stderr: parallel.schedule: unknown schedule
stdout: ignore
