/* libFuzzer target, plain: bytes through stat_read (toplev's reader, then
 * CSV, JSON or text, the layout detected per line or given by the input's
 * size) into the model and every set's metrics, in memory on one thread.
 * The differential checks (the pipe against direct reading) are
 * fuzz_stat's. */
#include <stdint.h>
#include "tests/fuzz/fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_stat_model(data, size, (enum stat_format)(size % 4), fuzz_set_metrics);
	return 0;
}
