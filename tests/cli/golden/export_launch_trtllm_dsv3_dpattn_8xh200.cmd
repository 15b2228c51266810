args: export presets/scenarios/serve-dsv3-dpattn-8xh200.parallax.json --launch trtllm -
exit: 0
