args: evaluate --model llama3-70b --mode inference --tp 8 --speculative-tokens 1
exit: 1
stdout: ignore
stderr: inference.speculative_tokens: .*has none \(mtp_layers 0\)
