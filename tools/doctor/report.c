// SPDX-License-Identifier: GPL-2.0-only
/* gso-doctor's findings: collected by the checks, printed as text or JSON. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"
#include "lib/array_grow.h"
#include "lib/fail.h"
#include "lib/json.h"

void doctor_report_init(struct doctor_report *r)
{
	memset(r, 0, sizeof(*r));
}

void doctor_report_fini(struct doctor_report *r)
{
	free(r->findings);
	memset(r, 0, sizeof(*r));
}

void doctor_report_check(struct doctor_report *r, const char *id)
{
	size_t i;

	for (i = 0; i < r->checks_count; i++)
		if (!strcmp(r->checks_run[i], id))
			return;
	if (r->checks_count < sizeof(r->checks_run) / sizeof(r->checks_run[0]))
		r->checks_run[r->checks_count++] = id;
}

struct doctor_finding *doctor_report_add(struct doctor_report *r, const char *id,
					 enum doctor_severity sev, const char *ifname,
					 const char *fmt, ...)
{
	struct doctor_finding *f;
	va_list ap;

	r->findings = array_grow(r->findings, r->count, &r->cap, sizeof(*r->findings));
	f = &r->findings[r->count++];
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->severity = sev;
	snprintf(f->ifname, sizeof(f->ifname), "%s", ifname ? ifname : "");
	va_start(ap, fmt);
	vsnprintf(f->summary, sizeof(f->summary), fmt, ap);
	va_end(ap);
	return f;
}

static struct doctor_evidence *ev_add(struct doctor_finding *f, const char *key,
				      enum doctor_value_type type)
{
	struct doctor_evidence *e;

	if (f->evidence_count == DOCTOR_MAX_EVIDENCE)
		fail_msg("internal: too much evidence for %s", f->id);
	e = &f->evidence[f->evidence_count++];
	snprintf(e->key, sizeof(e->key), "%s", key);
	e->type = type;
	return e;
}

void doctor_ev_u64(struct doctor_finding *f, const char *key, uint64_t v)
{
	ev_add(f, key, DOCTOR_U64)->u = v;
}

void doctor_ev_bool(struct doctor_finding *f, const char *key, bool v)
{
	ev_add(f, key, DOCTOR_BOOL)->u = v;
}

void doctor_ev_double(struct doctor_finding *f, const char *key, double v)
{
	ev_add(f, key, DOCTOR_DOUBLE)->d = v;
}

void doctor_ev_str(struct doctor_finding *f, const char *key, const char *fmt, ...)
{
	struct doctor_evidence *e = ev_add(f, key, DOCTOR_STR);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->s, sizeof(e->s), fmt, ap);
	va_end(ap);
}

void doctor_fix(struct doctor_finding *f, const char *fmt, ...)
{
	va_list ap;

	if (f->fix_count == DOCTOR_MAX_FIXES)
		fail_msg("internal: too many fixes for %s", f->id);
	va_start(ap, fmt);
	vsnprintf(f->fix[f->fix_count++], sizeof(f->fix[0]), fmt, ap);
	va_end(ap);
}

const char *doctor_severity_name(enum doctor_severity s)
{
	switch (s) {
	case DOCTOR_INFO:
		return "info";
	case DOCTOR_WARNING:
		return "warning";
	case DOCTOR_ERROR:
		return "error";
	}
	return "?";
}

int doctor_report_status(const struct doctor_report *r)
{
	size_t i;

	for (i = 0; i < r->count; i++)
		if (r->findings[i].severity >= DOCTOR_WARNING)
			return 1;
	return 0;
}

static void count_severities(const struct doctor_report *r, size_t n[3])
{
	size_t i;

	n[0] = n[1] = n[2] = 0;
	for (i = 0; i < r->count; i++)
		n[r->findings[i].severity]++;
}

static void print_value_text(const struct doctor_evidence *e)
{
	switch (e->type) {
	case DOCTOR_U64:
		printf("%" PRIu64, e->u);
		break;
	case DOCTOR_BOOL:
		printf("%s", e->u ? "yes" : "no");
		break;
	case DOCTOR_DOUBLE:
		printf("%.3f", e->d);
		break;
	case DOCTOR_STR:
		printf("%s", e->s);
		break;
	}
}

void doctor_report_print_text(const struct doctor_report *r, const char *mode)
{
	size_t i, j, n[3];

	for (i = 0; i < r->count; i++) {
		const struct doctor_finding *f = &r->findings[i];

		printf("%s: %s%s%s: %s\n", doctor_severity_name(f->severity), f->id,
		       f->ifname[0] ? " " : "", f->ifname, f->summary);
		if (f->evidence_count) {
			printf("  evidence:");
			for (j = 0; j < f->evidence_count; j++) {
				printf(" %s ", f->evidence[j].key);
				print_value_text(&f->evidence[j]);
			}
			printf("\n");
		}
		for (j = 0; j < f->fix_count; j++)
			printf("  fix: %s\n", f->fix[j]);
		printf("  doc: docs/doctor/%s.md\n", f->id);
	}
	count_severities(r, n);
	printf("gso-doctor: %s mode, %zu checks: %zu error, %zu warning, %zu info\n",
	       mode, r->checks_count, n[DOCTOR_ERROR], n[DOCTOR_WARNING], n[DOCTOR_INFO]);
}

static void print_value_json(const struct doctor_evidence *e)
{
	switch (e->type) {
	case DOCTOR_U64:
		printf("%" PRIu64, e->u);
		break;
	case DOCTOR_BOOL:
		printf("%s", e->u ? "true" : "false");
		break;
	case DOCTOR_DOUBLE:
		printf("%.4f", e->d);
		break;
	case DOCTOR_STR:
		json_print_string(stdout, e->s);
		break;
	}
}

void doctor_report_print_json(const struct doctor_report *r, const char *mode,
			      unsigned int sample_ms)
{
	size_t i, j, n[3];

	count_severities(r, n);
	printf("{\"mode\":\"%s\",\"sample_ms\":%u,\"checks\":[", mode, sample_ms);
	for (i = 0; i < r->checks_count; i++)
		printf("%s\"%s\"", i ? "," : "", r->checks_run[i]);
	printf("],\"findings\":[");
	for (i = 0; i < r->count; i++) {
		const struct doctor_finding *f = &r->findings[i];

		printf("%s{\"id\":\"%s\",\"severity\":\"%s\",\"ifname\":", i ? "," : "", f->id,
		       doctor_severity_name(f->severity));
		if (f->ifname[0])
			json_print_string(stdout, f->ifname);
		else
			printf("null");
		printf(",\"summary\":");
		json_print_string(stdout, f->summary);
		printf(",\"evidence\":{");
		for (j = 0; j < f->evidence_count; j++) {
			printf("%s", j ? "," : "");
			json_print_string(stdout, f->evidence[j].key);
			printf(":");
			print_value_json(&f->evidence[j]);
		}
		printf("},\"fix\":[");
		for (j = 0; j < f->fix_count; j++) {
			printf("%s", j ? "," : "");
			json_print_string(stdout, f->fix[j]);
		}
		printf("],\"doc\":\"docs/doctor/%s.md\"}", f->id);
	}
	printf("],\"counts\":{\"error\":%zu,\"warning\":%zu,\"info\":%zu},\"status\":%d}\n",
	       n[DOCTOR_ERROR], n[DOCTOR_WARNING], n[DOCTOR_INFO], doctor_report_status(r));
}
