args: schedule --pp 4 --microbatches 8 --schedule 1f1b --json
exit: 0
