// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Messages.  ADXL's Status values say little (FAILED covers most things),
 * so every failure that is not a bad argument says why on stderr, and the
 * calling thread keeps the sentence for adxl_last_error(): tests and
 * programs that capture no stderr can still show it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"

static __thread char last_error[512];

static void emit(bool keep, const char *fmt, va_list ap)
{
	char line[512];

	vsnprintf(line, sizeof(line), fmt, ap);
	/* One fprintf per line, so lines of several threads do not mix. */
	fprintf(stderr, "adxl: %s\n", line);
	if (keep)
		snprintf(last_error, sizeof(last_error), "%s", line);
}

void adxl__err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(true, fmt, ap);
	va_end(ap);
}

void adxl__warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(false, fmt, ap);
	va_end(ap);
}

void adxl__info(const char *fmt, ...)
{
	const char *v = getenv("MEMREG_ADXL_VERBOSE");
	va_list ap;

	if (!v || !*v || !strcmp(v, "0"))
		return;
	va_start(ap, fmt);
	emit(false, fmt, ap);
	va_end(ap);
}

/*
 * MEMREG_ADXL_VERBOSE=2: the steps of Connect and of the engine's port,
 * with the monotonic clock's seconds, to line up two hosts' logs.  Not
 * "[12.345]": the VM harness takes that for a kernel message's stamp.
 */
void adxl__trace(const char *fmt, ...)
{
	const char *v = getenv("MEMREG_ADXL_VERBOSE");
	char line[448];
	va_list ap;

	if (!v || atoi(v) < 2)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "adxl: at %.3f s: %s\n", adxl__now_ms() / 1000.0, line);
}

const char *adxl_last_error(void)
{
	return last_error;
}
