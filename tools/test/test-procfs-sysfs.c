// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of the pure parsers of procfs and sysfs text: softnet_stat
 * lines (with and without the CPU column, u32 wrap in deltas), CPU lists
 * and masks as sysfs prints them, and decimal counters.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/softnet.h"
#include "lib/sysfs.h"
#include "test/check.h"

static void test_softnet(void)
{
	/* 6.x: 13 columns, the last one the CPU (here CPUs 0 and 2 online). */
	static const char now13[] =
		"00015f90 00003070 00000032 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n"
		"00000bb8 0000000a 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000002\n";
	static const char old11[] =
		"00000010 00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n"
		"00000020 00000002 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n";
	struct softnet_cpu cpus[4], before[2], after[2];
	struct softnet_skew sk;
	int n;

	n = softnet_parse(now13, cpus, 4);
	check(n == 2, "softnet: two CPU lines");
	check(n == 2 && cpus[0].processed == 90000 && cpus[0].dropped == 12400 &&
	      cpus[0].time_squeeze == 50 && cpus[0].cpu == 0, "softnet: columns of CPU 0");
	check(n == 2 && cpus[1].cpu == 2 && cpus[1].dropped == 10, "softnet: CPU column read (2)");
	softnet_skew_compute(cpus, NULL, 2, &sk);
	check(sk.total_dropped == 12410 && sk.max_dropped == 12400 && sk.max_cpu == 0 &&
	      sk.cpus_with_drops == 2 && sk.cpus == 2, "softnet: skew since boot");

	n = softnet_parse(old11, cpus, 4);
	check(n == 2 && cpus[1].cpu == 1 && cpus[1].dropped == 2, "softnet: no CPU column: line order");
	check(softnet_parse(now13, cpus, 1) < 0, "softnet: more lines than room is an error");
	check(softnet_parse("zz 1 2\n", cpus, 4) < 0, "softnet: junk is an error");
	check(softnet_parse("00000001 00000002\n", cpus, 4) < 0, "softnet: too few columns");
	check(softnet_parse("", cpus, 4) == 0, "softnet: empty");

	before[0] = (struct softnet_cpu){ .cpu = 0, .dropped = 0xfffffff0u };
	before[1] = (struct softnet_cpu){ .cpu = 1, .dropped = 5 };
	after[0] = (struct softnet_cpu){ .cpu = 0, .dropped = 0x10 };
	after[1] = (struct softnet_cpu){ .cpu = 1, .dropped = 5 };
	softnet_skew_compute(after, before, 2, &sk);
	check(sk.total_dropped == 0x20 && sk.max_cpu == 0 && sk.cpus_with_drops == 1,
	      "softnet: delta across the u32 wrap");
}

static void test_cpus(void)
{
	check(sysfs_cpulist_count("0") == 1, "cpulist: 0");
	check(sysfs_cpulist_count("0-3") == 4, "cpulist: 0-3");
	check(sysfs_cpulist_count("0-3,5,7-8") == 7, "cpulist: 0-3,5,7-8");
	check(sysfs_cpulist_count("3-1") < 0, "cpulist: reversed range");
	check(sysfs_cpulist_count("0-") < 0 && sysfs_cpulist_count("a") < 0, "cpulist: junk");
	check(sysfs_cpumask_any("00000000,00000000") == 0, "cpumask: all zero");
	check(sysfs_cpumask_any("0") == 0, "cpumask: 0");
	check(sysfs_cpumask_any("00000000,00000003") == 1, "cpumask: 3");
	check(sysfs_cpumask_any("") < 0 && sysfs_cpumask_any("0x3") < 0, "cpumask: malformed");
	/* Near LONG_MAX the old signed arithmetic overflowed: now out of range. */
	check(sysfs_cpulist_count("0-9223372036854775807") < 0, "cpulist: range to LONG_MAX");
	check(sysfs_cpulist_count("9223372036854775806-9223372036854775807") < 0,
	      "cpulist: CPU numbers near LONG_MAX");
	check(sysfs_cpulist_count("99999999999999999999999") < 0, "cpulist: beyond ULONG_MAX");
	check(sysfs_cpulist_count("0-65535") == 65536, "cpulist: the largest allowed range");
	check(sysfs_cpulist_count("0-65535,0-1") < 0, "cpulist: count above the cap");
	check(sysfs_cpulist_count("0-3,") < 0 && sysfs_cpulist_count(",0") < 0,
	      "cpulist: empty items");
	check(sysfs_cpulist_count("") == 0, "cpulist: empty");
}

static void test_numbers(void)
{
	uint64_t v = 1;

	check(!sysfs_parse_u64("010", &v) && v == 10, "number: 010 is decimal ten");
	check(sysfs_parse_u64("0x10", &v) < 0, "number: no hex");
	check(!sysfs_parse_u64("18446744073709551615", &v) && v == UINT64_MAX,
	      "number: UINT64_MAX");
	check(sysfs_parse_u64("18446744073709551616", &v) < 0, "number: beyond UINT64_MAX");
	check(sysfs_parse_u64("-1", &v) < 0 && sysfs_parse_u64(" 1", &v) < 0 &&
	      sysfs_parse_u64("1 ", &v) < 0 && sysfs_parse_u64("", &v) < 0,
	      "number: signs, spaces, empty");
}

int main(void)
{
	test_softnet();
	test_cpus();
	test_numbers();
	return check_exit_status();
}
