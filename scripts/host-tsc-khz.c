// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Print the host's TSC frequency in kHz (scripts/vm-run.sh passes it to
 * the debug kernel as tsc_early_khz=).
 *
 * Under TCG a guest's RDTSC reads the host's TSC, so the host knows the
 * guest's TSC rate without the guest calibrating it. The debug kernel has
 * no ACPI, so its only reference is the PIT, and its calibration against
 * it fails when the host is busy ("tsc: Unable to calibrate against
 * PIT"): the TSC is then marked unstable and the clock falls back to
 * refined-jiffies (4 ms a tick, no high-resolution timers).
 *
 * Three 50 ms windows of RDTSC against CLOCK_MONOTONIC_RAW; the median
 * is printed. Exits 1, printing nothing, on a host without a TSC whose
 * rate is constant (the guest then calibrates as before).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int constant_tsc(void)
{
	char line[4096];
	FILE *f = fopen("/proc/cpuinfo", "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) == 0) {
			found = strstr(line, " constant_tsc") != NULL;
			break;
		}
	}
	fclose(f);
	return found;
}

static double window_khz(void)
{
	const int64_t span_ns = 50 * 1000 * 1000;
	int64_t t0 = now_ns(), t1;
	uint64_t c0 = __rdtsc(), c1;

	do {
		t1 = now_ns();
	} while (t1 - t0 < span_ns);
	c1 = __rdtsc();
	return (double)(c1 - c0) * 1e6 / (double)(t1 - t0);
}

int main(void)
{
	double k[3], t;
	int i, j;

	if (!constant_tsc())
		return 1;
	for (i = 0; i < 3; i++)
		k[i] = window_khz();
	for (i = 0; i < 3; i++)
		for (j = i + 1; j < 3; j++)
			if (k[j] < k[i]) {
				t = k[i];
				k[i] = k[j];
				k[j] = t;
			}
	if (k[1] < 100000)
		return 1;
	printf("%.0f\n", k[1]);
	return 0;
}
#else
int main(void)
{
	return 1;
}
#endif
