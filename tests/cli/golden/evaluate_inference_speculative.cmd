args: evaluate presets/scenarios/serve-dsv3-mtp-8xh200.parallax.json --speculative-tokens 2 --draft-acceptance 0.8
exit: 0
