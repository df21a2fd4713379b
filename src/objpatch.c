// SPDX-License-Identifier: GPL-2.0
/*
 * libbpf 1.1 cannot rename a struct_ops map before load, so the name is
 * patched in the object image: the placeholder CUBIC_DEFAULT_NAME, zero-padded
 * to the 16 bytes of tcp_congestion_ops.name, once per struct_ops map inside
 * the .struct_ops section. The object image also gives the build id. Pure:
 * no libbpf, so the unit tests link it.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "instance.h"

/* tcp_congestion_ops.name as it sits in the map value: 16 bytes, zero-padded. */
static void ops_name(char out[CUBIC_NAME_MAX], const char *name)
{
	memset(out, 0, CUBIC_NAME_MAX);
	memcpy(out, name, strnlen(name, CUBIC_NAME_MAX - 1));
}

int objpatch_ops_name(void *elf, size_t sz, const char *name, int nmaps)
{
	char pat[CUBIC_NAME_MAX], repl[CUBIC_NAME_MAX];
	const Elf64_Ehdr *eh = elf;
	const Elf64_Shdr *sh;
	const char *shstr;
	int found = 0;

	if (sz < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff > sz ||
	    (sz - eh->e_shoff) / sizeof(*sh) < eh->e_shnum || eh->e_shstrndx >= eh->e_shnum)
		return -EINVAL;
	sh = (const Elf64_Shdr *)((const char *)elf + eh->e_shoff);
	if (sh[eh->e_shstrndx].sh_offset >= sz)
		return -EINVAL;
	shstr = (const char *)elf + sh[eh->e_shstrndx].sh_offset;
	ops_name(pat, CUBIC_DEFAULT_NAME);
	ops_name(repl, name);

	for (int i = 0; i < eh->e_shnum; i++) {
		char *sec = (char *)elf + sh[i].sh_offset;

		if (strcmp(shstr + sh[i].sh_name, ".struct_ops") || sh[i].sh_offset > sz ||
		    sh[i].sh_size > sz - sh[i].sh_offset)
			continue;
		for (size_t off = 0; off + sizeof(pat) <= sh[i].sh_size; off++) {
			if (!memcmp(sec + off, pat, sizeof(pat))) {
				memcpy(sec + off, repl, sizeof(repl));
				found++;
			}
		}
	}
	return found == nmaps ? 0 : -ENOENT;
}

/* 32-bit FNV-1a, continued from h over n bytes. */
static __u32 fnv1a(__u32 h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 16777619u;
	}
	return h;
}

__u32 objimage_build_id(const void *elf, size_t sz, const char *tag)
{
	__u32 h = fnv1a(2166136261u, elf, sz);

	/* a NUL before the tag: "ab" + "c" and "a" + "bc" stay apart */
	if (tag && *tag)
		h = fnv1a(fnv1a(h, "", 1), tag, strlen(tag));
	return h ? h : 1; /* 0 means no build id (cubic_info of an older cubicctl) */
}

const char *build_id_str(__u32 id, char *buf, size_t len)
{
	snprintf(buf, len, "%08x", id);
	return buf;
}
