/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Instances of bpf_cubic: each one's maps are pinned under CUBIC_PIN_ROOT/NAME.
 * One job per file:
 *   pins.c     the pin store: paths, opening, listing, removing, reading maps
 *   kstate.c   the kernel's state of an ops map, read through vmlinux BTF
 *   objpatch.c the instance name patched into the BPF object image
 *   loader.c   loading: open the skeleton, pin, register (the only user of it)
 */
#ifndef CUBICCTL_INSTANCE_H
#define CUBICCTL_INSTANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include "cubic_abi.h"
#include "vocab.h"

struct instance {
	char name[CUBIC_NAME_MAX];
	char dir[PATH_MAX];
	int ops_fd;
	int tunables_fd;
	int counters_fd;
	int info_fd;
	int events_fd;
	/*
	 * A struct_ops link pinned as CUBIC_PIN_LINK: opened at each use
	 * (instance_link_get()), never held, since before Linux 6.11 a process
	 * holding it would keep the instance registered after unload.
	 */
	bool link_pinned;
	int link_fd; /* a struct_ops link found by its id (instance_find_unpinned), else -1 */
	__u32 abi_version; /* from the info map at open; 0: unreadable */
	char ops_ca_name[CUBIC_NAME_MAX]; /* the name its ops map holds (instance_state) */
	/* (instance_state) registered through its link, not its ops map's element */
	bool link_mode;
	bool link_foreign; /* (instance_state) the link pin is no struct_ops link of ours */
};

enum instance_state {
	INST_ABSENT,	 /* no pin folder */
	INST_REGISTERED, /* pinned and registered in the kernel */
	INST_LEFTOVER,	 /* pinned but not registered: an interrupted load */
	INST_FOREIGN,	 /* the ops pin is not provably this instance: never touched */
};

/* pins.c */
void instance_path(char *buf, size_t len, const char *name, const char *pin);
int instance_open(struct instance *in, const char *name);
void instance_close(struct instance *in);
int instance_read_tunables(struct instance *in, struct cubic_tunables *t);
int instance_read_counters(struct instance *in, struct cubic_counters *sum);
/* Its info map (this ABI's only: -EPROTO for another). */
int instance_read_info(struct instance *in, struct cubic_info *info);
int instance_remove_pins(const char *name);
/* Unpins everything in a folder of bpffs, then removes it (0 if it is not there). */
int pin_dir_remove(const char *dir);
int instance_list(char (*names)[CUBIC_NAME_MAX], int max);
/* Whether the instance's info map says this cubicctl's CUBIC_ABI_VERSION. */
bool instance_abi_ok(const struct instance *in);
/*
 * Opens a registered instance of this ABI, or says why not (one sentence) and
 * returns EXIT_NOT_LOADED or EXIT_FAIL; EXIT_OK when in is open.
 */
int instance_open_loaded(struct instance *in, const char *name);
/*
 * fn on the named instance (instance_open_loaded()'s sentence and code if it
 * is not loaded), or with name NULL on every one cubicctl loaded that is
 * registered now with this ABI (none: one sentence, EXIT_NOT_LOADED). names
 * (max of them) gets the instances' names, fn the index of its in there.
 * Stops at fn's first nonzero result and returns it.
 */
int instance_each_loaded(const char *name, char (*names)[CUBIC_NAME_MAX], int max,
			 int (*fn)(struct instance *in, int idx, void *ctx), void *ctx);

/* kstate.c */
enum instance_state instance_state(struct instance *in);
const char *instance_state_str(enum instance_state st);
/* Says (one sentence) why an INST_FOREIGN instance is left alone. */
void instance_foreign_msg(const struct instance *in);
/*
 * Unregisters the instance only if it is proven to be the one named (-ESRCH if
 * not): in map mode by deleting its ops map's element; in link mode by
 * detaching its link (Linux 6.11+) or, before, by unpinning it and letting go
 * (-EBUSY if another process still holds the link).
 */
int instance_unregister(struct instance *in);
/*
 * A registered instance of ours under name whose pins are gone (loaded from
 * another mount namespace): 0 with in's ops_fd (and link_fd, in link mode)
 * set, for instance_unregister(); -ENOENT if there is none.
 */
int instance_find_unpinned(const char *name, struct instance *in);
/* A new fd of the instance's struct_ops link (its pin, or the one found by id), or -1. */
int instance_link_get(const struct instance *in);
/*
 * BPF_STRUCT_OPS of this kernel's enum bpf_attach_type (its BTF): the kernel
 * has struct_ops links (Linux 6.4+); -1 if it has not.
 */
int kstate_struct_ops_attach_type(void);
/*
 * Whether load registers through a struct_ops link: the kernel has them, and
 * CUBICCTL_LINK=0 is not set (map mode, as on Linux 6.1 and by older
 * cubicctls; for tests of both modes and of upgrade's refusal).
 */
bool kstate_link_mode(void);
#define LINK_MODE_ENV "CUBICCTL_LINK"
/* The datapath of an opened instance, -1 if unknown. */
int instance_datapath(const struct instance *in);
/*
 * The fd of the map named map_name that the programs of a registered
 * instance use (its socket storage, which is not pinned), or -ENOENT.
 */
int instance_prog_map_fd(const struct instance *in, const char *map_name);
/* The argument count of this kernel's tcp_congestion_ops.cong_control, -1 if unknown. */
int kstate_cong_control_args(void);

/*
 * Whether the rule of hystart value v can run on datapath dp of this kernel
 * (the rules' fast_cc_args against the ops map this kernel gets): NULL if it
 * can, else the sentence that refuses it, in buf. On 6.1's (sk, rs)
 * .cong_control the object leaves PREDICT out (bpf/rule_predict.bpf.h predict_ok).
 */
const char *rule_refused(int dp, __u32 v, char *buf, size_t len);

/* objpatch.c */
/*
 * Replaces the placeholder name CUBIC_DEFAULT_NAME of each struct_ops map in
 * an ELF object image by name; -ENOENT unless exactly nmaps were replaced,
 * -EINVAL if the image is not a sane ELF64.
 */
int objpatch_ops_name(void *elf, size_t sz, const char *name, int nmaps);
/*
 * The build id of an object image as cubicctl embeds it, before the name is
 * patched in (so every instance of one build has the same id), with tag (the
 * environment's CUBICCTL_BUILD_TAG; NULL or "" for none) mixed in: never 0.
 */
__u32 objimage_build_id(const void *elf, size_t sz, const char *tag);
/* A build id as cubicctl shows it: 8 hex digits (len >= 9). */
const char *build_id_str(__u32 id, char *buf, size_t len);
/* The environment variable whose value is mixed into the build id ("a canary build"). */
#define BUILD_TAG_ENV "CUBICCTL_BUILD_TAG"

/* loader.c */
/* Registers a new instance; on failure leaves nothing behind. */
int instance_load(const char *name, const struct cubic_tunables *t, __u32 ring_size,
		  enum datapath dp);

/* What instance_upgrade() did. */
struct upgrade_result {
	__u32 old_build_id, new_build_id;
	__u32 old_ops_id, new_ops_id; /* the struct_ops maps (bpftool map show id) */
	int reused;		      /* maps the new programs share with the old ones */
};
/*
 * Replaces the programs of in (registered, in link mode, of this ABI) by this
 * cubicctl's, keeping its maps: the new object reuses every map of the
 * instance, the link is updated to the new struct_ops map and that is pinned
 * where the old one was. Says why not (one sentence, ending in reload, the
 * command that reloads it, where a reload is the way) and returns EXIT_FAIL,
 * with nothing changed; EXIT_OK and *r when done.
 */
int instance_upgrade(struct instance *in, const char *reload, struct upgrade_result *r);

#endif /* CUBICCTL_INSTANCE_H */
