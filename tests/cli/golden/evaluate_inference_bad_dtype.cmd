args: evaluate --model llama3-70b --mode inference --tp 8 --weight-dtype fp6
exit: 1
stderr: inference.weight_dtype: must be bf16, fp8, int8, int4, nvfp4 or mxfp4
stdout: ignore
