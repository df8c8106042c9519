/*
 * suite/load_text: the bytes before and around libyaml: UTF-8 and control-character
 * checks with line:col, libyaml's own errors placed the same way, and the
 * alias expansion budget (recursive aliases included).
 */
#include "suite/load_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "base/path.h"
#include "base/sbuf.h"
#include "base/strvec.h"
#include "base/xalloc.h"
#include "base/suggest.h"
#include "suite/units.h"
#include "suite/vars.h"
#include "suite/ywalk.h"

/* ------------------------------------------------------------------ */
/* Encoding checks, before libyaml sees the bytes.                     */

/* Length of the valid UTF-8 sequence at s (1..4), or 0; *cp gets it. */
size_t ld_utf8_decode(const unsigned char *s, size_t avail, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t v, min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if ((c & 0xe0) == 0xc0) {
		n = 2, v = c & 0x1f, min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		n = 3, v = c & 0x0f, min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		n = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (avail < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/* Returns the number of problems recorded. */
size_t ld_check_encoding(struct ywalk *w, const char *data, size_t len)
{
	const unsigned char *s = (const unsigned char *)data;
	size_t nerr = 0;
	int line = 1, col = 1;
	if (len >= 3 && s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf) {
		ywalk_error_at(w, 1, 1, NULL,
			       "the file starts with a UTF-8 byte order mark (BOM); save it as "
			       "UTF-8 without a BOM");
		return 1;
	}
	for (size_t i = 0; i < len && nerr < SUITE_MAX_ENCODING_ERRORS;) {
		uint32_t cp;
		size_t n = ld_utf8_decode(s + i, len - i, &cp);
		if (!n) {
			ywalk_error_at(w, line, col, NULL,
				       "invalid UTF-8 (byte 0x%02x); the suite must be UTF-8 text",
				       s[i]);
			nerr++;
			/* Skip to the next plausible start byte. */
			i++;
			while (i < len && (s[i] & 0xc0) == 0x80)
				i++;
			col++;
			continue;
		}
		if (cp == '\n' || (cp == '\r' && !(i + 1 < len && s[i + 1] == '\n'))) {
			line++;
			col = 1;
			i += n;
			continue;
		}
		if ((cp < 0x20 && cp != '\t' && cp != '\r') || cp == 0x7f ||
		    (cp >= 0x80 && cp <= 0x9f)) {
			ywalk_error_at(w, line, col, NULL,
				       "control character U+%04X is not allowed (only tab, newline "
				       "and carriage return)",
				       (unsigned)cp);
			nerr++;
		} else if (cp == 0xfeff) {
			ywalk_error_at(w, line, col, NULL,
				       "a byte order mark (U+FEFF) is not allowed inside the file");
			nerr++;
		}
		i += n;
		col++;
	}
	return nerr;
}

/* 1-based line and column of byte offset `off` (columns count characters). */
static void offset_position(const char *data, size_t len, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		unsigned char c = (unsigned char)data[i];
		if (c == '\n') {
			++*line;
			*col = 1;
		} else if ((c & 0xc0) != 0x80) {
			++*col;
		}
	}
}

/* The byte at (line, col) (1-based; col in characters), or -1. */
static int char_at(const char *data, size_t len, int line, int col)
{
	size_t i = 0;
	for (int l = 1; l < line && i < len; i++)
		if (data[i] == '\n')
			l++;
	for (int c = 1; i < len && data[i] != '\n'; i++) {
		if (((unsigned char)data[i] & 0xc0) == 0x80)
			continue;
		if (c == col)
			return (unsigned char)data[i];
		c++;
	}
	return -1;
}

void ld_report_parser_error(struct loader *L, yaml_parser_t *p)
{
	int line, col;
	if (p->error == YAML_READER_ERROR) {
		offset_position(L->data, L->len, p->problem_offset, &line, &col);
	} else {
		line = (int)p->problem_mark.line + 1;
		col = (int)p->problem_mark.column + 1;
	}
	struct sbuf msg = SBUF_INIT;
	sbuf_addf(&msg, "invalid YAML: %s", p->problem ? p->problem : "parse error");
	if (p->context && p->error != YAML_READER_ERROR)
		sbuf_addf(&msg, " (%s at line %d, column %d)", p->context,
			  (int)p->context_mark.line + 1, (int)p->context_mark.column + 1);
	if (char_at(L->data, L->len, line, col) == '\t')
		sbuf_adds(&msg, "; tabs cannot be used for indentation in YAML, use spaces");
	ywalk_error_at(&L->w, line, col, NULL, "%s", msg.buf);
	sbuf_release(&msg);
}

/* ------------------------------------------------------------------ */
/* Alias expansion budget (and recursive aliases), without recursion.   */

static size_t node_children(yaml_node_t *n, size_t k, int *child)
{
	/* The k-th child index of n, 0 when k is past the end. */
	if (n->type == YAML_SEQUENCE_NODE) {
		size_t len = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
		if (k >= len)
			return 0;
		*child = n->data.sequence.items.start[k];
		return 1;
	}
	if (n->type == YAML_MAPPING_NODE) {
		size_t len = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
		if (k >= 2 * len)
			return 0;
		yaml_node_pair_t *p = &n->data.mapping.pairs.start[k / 2];
		*child = k % 2 ? p->value : p->key;
		return 1;
	}
	return 0;
}

int ld_check_expansion(struct loader *L, yaml_document_t *doc)
{
	size_t nr = (size_t)(doc->nodes.top - doc->nodes.start);
	uint64_t budget = nr > SUITE_MAX_EXPANDED_NODES ? nr : SUITE_MAX_EXPANDED_NODES;
	uint64_t *size = xcalloc(nr + 1, sizeof(*size));
	unsigned char *state = xcalloc(nr + 1, 1); /* 0 new, 1 open, 2 done */
	struct frame {
		int node;
		size_t next;
	} *stack = xreallocarray(NULL, nr + 1, sizeof(*stack));
	size_t depth = 0;
	int rc = 0;

	stack[depth++] = (struct frame){1, 0};
	state[1] = 1;
	size[1] = 1;
	while (depth && !rc) {
		struct frame *f = &stack[depth - 1];
		yaml_node_t *n = yaml_document_get_node(doc, f->node);
		int child;
		if (!node_children(n, f->next, &child)) {
			state[f->node] = 2;
			uint64_t sz = size[f->node];
			depth--;
			if (depth) {
				uint64_t *ps = &size[stack[depth - 1].node];
				*ps = *ps + sz > budget + 1 ? budget + 1 : *ps + sz;
			}
			continue;
		}
		f->next++;
		if (state[child] == 1) {
			yaml_node_t *c = yaml_document_get_node(doc, child);
			ywalk_error(&L->w, c, NULL,
				    "invalid YAML: an alias refers to a node that contains it "
				    "(recursive alias)");
			rc = -1;
			break;
		}
		if (state[child] == 2) {
			uint64_t *ps = &size[f->node];
			*ps = *ps + size[child] > budget + 1 ? budget + 1 : *ps + size[child];
			continue;
		}
		state[child] = 1;
		size[child] = 1;
		stack[depth++] = (struct frame){child, 0};
	}
	if (!rc && size[1] > budget) {
		/* Point at the innermost node that is still too large. */
		int at = 1;
		for (;;) {
			yaml_node_t *n = yaml_document_get_node(doc, at);
			int child, next = 0;
			for (size_t k = 0; node_children(n, k, &child); k++)
				if (size[child] > budget) {
					next = child;
					break;
				}
			if (!next)
				break;
			at = next;
		}
		ywalk_error(&L->w, yaml_document_get_node(doc, at), NULL,
			    "invalid YAML: aliases expand to more than %llu nodes (an alias bomb?)",
			    (unsigned long long)budget);
		rc = -1;
	}
	free(size);
	free(state);
	free(stack);
	return rc;
}
