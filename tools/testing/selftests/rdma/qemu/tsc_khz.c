// SPDX-License-Identifier: GPL-2.0-only
/*
 * tsc_khz - print the rate of this machine's TSC in kHz.
 *
 * Under TCG a guest's RDTSC reads the host's TSC (QEMU's
 * cpu_get_host_ticks()), so the guest's TSC runs at the host's rate.  Our
 * test kernel has no ACPI, hence no HPET or PM timer to calibrate the TSC
 * against, and its PIT calibration fails under emulation: without help
 * the guest marks the TSC unstable and keeps time with jiffies, which lag
 * whenever QEMU is preempted.  qemu/vm.sh hands the rate measured here to
 * the guest as tsc_early_khz=.
 *
 * The TSC is read against CLOCK_MONOTONIC_RAW over 200 ms; each end is the
 * tightest of several bracketed readings, so the error is a few parts per
 * million.  Exits 1 when the CPU has no invariant TSC to speak of.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static uint64_t ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* sample: a TSC reading and the clock's, bracketed as tightly as we can */
static void sample(uint64_t *tsc, uint64_t *clk)
{
	uint64_t best = UINT64_MAX, a, b, t;
	int i;

	for (i = 0; i < 50; i++) {
		a = __rdtsc();
		t = ns();
		b = __rdtsc();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*clk = t;
		}
	}
}

int main(void)
{
	struct timespec pause = { 0, 200 * 1000 * 1000 };
	uint64_t t0, c0, t1, c1;

	sample(&t0, &c0);
	nanosleep(&pause, NULL);
	sample(&t1, &c1);
	if (t1 <= t0 || c1 <= c0)
		return 1;
	printf("%llu\n", (unsigned long long)
	       ((double)(t1 - t0) * 1000000.0 / (double)(c1 - c0) + 0.5));
	return 0;
}
