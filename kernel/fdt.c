/*
 * kernel/fdt.c: a small flattened-device-tree reader (DT spec v0.4, FDT v17).
 *
 * Walks the structure block token by token; no unflattening, no allocation.
 * Malformed blobs make lookups fail rather than run off the end.
 */
#include <string.h>
#include <kernel/fdt.h>

#define FDT_MAGIC      0xd00dfeed
#define FDT_BEGIN_NODE 1
#define FDT_END_NODE   2
#define FDT_PROP       3
#define FDT_NOP	       4
#define FDT_END	       9

struct fdt_header {
	uint32_t magic, totalsize, off_dt_struct, off_dt_strings;
	uint32_t off_mem_rsvmap, version, last_comp_version;
	uint32_t boot_cpuid_phys, size_dt_strings, size_dt_struct;
};

static const uint8_t *fdt_struct;
static uint32_t fdt_struct_size;
static const char *fdt_strings;

static uint32_t be32(const void *p)
{
	return __builtin_bswap32(*(const uint32_t *)p);
}

uint32_t fdt_cell(const void *prop, int index)
{
	return be32((const uint32_t *)prop + index);
}

int fdt_init(const void *blob)
{
	const struct fdt_header *h = blob;

	if (!blob || be32(&h->magic) != FDT_MAGIC || be32(&h->version) < 16)
		return -1;
	fdt_struct = (const uint8_t *)blob + be32(&h->off_dt_struct);
	fdt_struct_size = be32(&h->size_dt_struct);
	fdt_strings = (const char *)blob + be32(&h->off_dt_strings);
	return 0;
}

static uint32_t token_at(int off)
{
	if (off < 0 || (uint32_t)off + 4 > fdt_struct_size)
		return FDT_END;
	return be32(fdt_struct + off);
}

/* Offset of the token after the one at @off (a node begin skips its name). */
static int next_token(int off)
{
	uint32_t tok = token_at(off);

	if (tok == FDT_BEGIN_NODE) {
		const char *name = (const char *)fdt_struct + off + 4;
		return off + 4 + ALIGN_UP((int)strlen(name) + 1, 4);
	}
	if (tok == FDT_PROP) {
		uint32_t len = be32(fdt_struct + off + 4);
		return off + 12 + ALIGN_UP((int)len, 4);
	}
	return off + 4;
}

/* Skip the node at @node with all its children; return what follows it. */
static int skip_node(int node)
{
	int depth = 0, off = node;

	do {
		uint32_t tok = token_at(off);
		if (tok == FDT_BEGIN_NODE)
			depth++;
		else if (tok == FDT_END_NODE)
			depth--;
		else if (tok == FDT_END)
			return -1;
		off = next_token(off);
	} while (depth > 0);
	return off;
}

const char *fdt_node_name(int node)
{
	return (const char *)fdt_struct + node + 4;
}

/* The first child node, or -1. Properties come before children. */
int fdt_first_child(int node)
{
	int off = next_token(node);

	for (;;) {
		uint32_t tok = token_at(off);
		if (tok == FDT_BEGIN_NODE)
			return off;
		if (tok != FDT_PROP && tok != FDT_NOP)
			return -1;
		off = next_token(off);
	}
}

int fdt_next_sibling(int node)
{
	int off = skip_node(node);

	while (off >= 0 && token_at(off) == FDT_NOP)
		off = next_token(off);
	return (off >= 0 && token_at(off) == FDT_BEGIN_NODE) ? off : -1;
}

const void *fdt_getprop(int node, const char *name, int *len)
{
	if (node < 0 || token_at(node) != FDT_BEGIN_NODE)
		return NULL;
	for (int off = next_token(node);; off = next_token(off)) {
		uint32_t tok = token_at(off);
		if (tok == FDT_NOP)
			continue;
		if (tok != FDT_PROP)
			return NULL;
		if (!strcmp(fdt_strings + be32(fdt_struct + off + 8), name)) {
			if (len)
				*len = (int)be32(fdt_struct + off + 4);
			return fdt_struct + off + 12;
		}
	}
}

/* Match one path component against a node name ("cpus" matches "cpus", "a"
 * matches "a@1"). */
static bool name_matches(const char *node, const char *comp, size_t n)
{
	return !strncmp(node, comp, n) && (node[n] == '\0' || node[n] == '@');
}

int fdt_path_offset(const char *path)
{
	int node = 0;

	while (token_at(node) == FDT_NOP)
		node = next_token(node);
	while (*path == '/')
		path++;
	while (*path) {
		size_t n = strcspn(path, "/");
		int child;
		fdt_for_each_child (child, node) {
			if (name_matches(fdt_node_name(child), path, n))
				break;
		}
		if (child < 0)
			return -1;
		node = child;
		path += n;
		while (*path == '/')
			path++;
	}
	return node;
}

static bool has_compatible(int node, const char *compatible)
{
	int len;
	const char *p = fdt_getprop(node, "compatible", &len);

	for (int i = 0; p && i < len; i += (int)strlen(p + i) + 1)
		if (!strcmp(p + i, compatible))
			return true;
	return false;
}

int fdt_next_compatible(int after, const char *compatible)
{
	int off = after < 0 ? 0 : next_token(after);

	for (;;) {
		uint32_t tok = token_at(off);
		if (tok == FDT_END)
			return -1;
		if (tok == FDT_BEGIN_NODE && has_compatible(off, compatible))
			return off;
		off = next_token(off);
	}
}

bool fdt_read_u32(int node, const char *name, uint32_t *val)
{
	int len;
	const void *p = fdt_getprop(node, name, &len);

	if (!p || len < 4)
		return false;
	*val = be32(p);
	return true;
}

bool fdt_status_okay(int node)
{
	const char *s = fdt_getprop(node, "status", NULL);
	return !s || !strcmp(s, "okay") || !strcmp(s, "ok");
}

/* The parent of @node: walk from the root keeping a stack of open nodes. */
int fdt_parent(int node)
{
	int stack[32], depth = 0;

	for (int off = 0; off >= 0;) {
		uint32_t tok = token_at(off);
		if (tok == FDT_END)
			return -1;
		if (tok == FDT_BEGIN_NODE) {
			if (off == node)
				return depth ? stack[depth - 1] : -1;
			if (depth == ARRAY_SIZE(stack))
				return -1;
			stack[depth++] = off;
		} else if (tok == FDT_END_NODE && depth > 0) {
			depth--;
		}
		off = next_token(off);
	}
	return -1;
}

static uint64_t read_cells(const uint32_t *p, uint32_t n)
{
	uint64_t v = 0;
	for (uint32_t i = 0; i < n; i++)
		v = (v << 32) | be32(p + i);
	return v;
}

bool fdt_reg(int node, int index, uint64_t *addr, uint64_t *size)
{
	uint32_t ac = 2, sc = 1;
	int parent = fdt_parent(node), len;
	const uint32_t *reg = fdt_getprop(node, "reg", &len);

	if (parent >= 0) {
		fdt_read_u32(parent, "#address-cells", &ac);
		fdt_read_u32(parent, "#size-cells", &sc);
	}
	if (!reg || ac > 2 || sc > 2 || (index + 1) * (int)(ac + sc) * 4 > len)
		return false;
	reg += index * (ac + sc);
	*addr = read_cells(reg, ac);
	*size = read_cells(reg + ac, sc);
	return true;
}

int fdt_node_by_phandle(uint32_t phandle)
{
	for (int off = 0;; off = next_token(off)) {
		uint32_t tok = token_at(off), ph;
		if (tok == FDT_END)
			return -1;
		if (tok == FDT_BEGIN_NODE &&
		    fdt_read_u32(off, "phandle", &ph) && ph == phandle)
			return off;
	}
}
