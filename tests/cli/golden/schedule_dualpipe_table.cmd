args: schedule --pp 4 --microbatches 8 --schedule dualpipe
exit: 0
