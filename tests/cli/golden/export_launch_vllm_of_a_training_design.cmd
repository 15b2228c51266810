args: export presets/scenarios/gpt3-175b-1536xa100.parallax.json --launch vllm -
exit: 2
stderr: this is a training design .mode training.: serving launches
stdout: ignore
