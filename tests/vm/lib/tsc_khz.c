// SPDX-License-Identifier: GPL-2.0
/*
 * tsc_khz: the host's TSC frequency in kHz, for the guests' command line
 * (tsc_early_khz=).  Under TCG a guest's TSC is the host's, but a kernel
 * without HPET or ACPI (the debug kernel) can only calibrate it against
 * the PIT, and on a busy host that fails ("Unable to calibrate against
 * PIT"): the TSC is marked unstable and the clock falls back to jiffies,
 * which ran at half speed in a CI run (a 180 s fuzz run took 6 minutes).
 *
 * Counts TSC ticks over 200 ms of CLOCK_MONOTONIC_RAW, three times, and
 * prints the median.  Exits 1 where there is no usable TSC.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static uint64_t ns_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t one_khz(void)
{
	struct timespec d = { 0, 200 * 1000 * 1000 };
	uint64_t t0 = ns_now(), c0 = __rdtsc(), t1, c1;

	nanosleep(&d, NULL);
	t1 = ns_now();
	c1 = __rdtsc();
	if (t1 <= t0 || c1 <= c0)
		return 0;
	return (c1 - c0) * 1000000ULL / (t1 - t0);
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(void)
{
	uint64_t khz[3];
	int i;

	for (i = 0; i < 3; i++)
		khz[i] = one_khz();
	qsort(khz, 3, sizeof(khz[0]), cmp);
	if (khz[1] < 100000)		/* under 100 MHz: no TSC to speak of */
		return 1;
	printf("%llu\n", (unsigned long long)khz[1]);
	return 0;
}
