args: schedule --pp 4 --microbatches 8 --schedule 1f1b --out gantt.jpeg
exit: 2
stderr: unknown format ".jpeg"
stdout: ignore
