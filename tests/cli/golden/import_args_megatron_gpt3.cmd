args: import-args tests/cli/data/megatron-gpt3-175b.sh
exit: 0
