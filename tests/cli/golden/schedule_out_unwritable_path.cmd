args: schedule --pp 4 --microbatches 8 --schedule 1f1b --out /nonexistent-parallax-folder/gantt.svg
exit: 2
stderr: cannot write "/nonexistent-parallax-folder/gantt.svg"
stdout: ignore
