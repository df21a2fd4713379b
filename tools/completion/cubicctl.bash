# SPDX-License-Identifier: GPL-2.0
# bash completion for cubicctl(8): commands, each command's options, instance
# names after --name, the named network namespaces after --netns, tunable
# keys (KEY=), presets after --preset and preset=, datapaths after --datapath
# and load's datapath=, files after --config, and the command after help.
#
# Everything but the instance and namespace names is read from the cubicctl
# being completed ('help', 'help --markdown', 'help --reasons-json', 'COMMAND
# --help'), so it follows that binary and needs no root. The instance names
# are the pin folders under /sys/fs/bpf/cubicctl, which only root can list:
# as another user --name completes nothing. The namespaces are the names in
# /run/netns, as 'ip netns list' shows them.
#
# make install puts this file in $(PREFIX)/share/bash-completion/completions/,
# where the bash-completion package loads it on first use; without that
# package, source it from ~/.bashrc.

_CUBICCTL_PIN_ROOT=/sys/fs/bpf/cubicctl

# The commands, from the "commands:" list of 'cubicctl help'.
_cubicctl_commands() {
	"$1" help 2>/dev/null | sed -n '/^commands:/,/^$/{s/^  \([a-z][a-z_-]*\).*/\1/p}'
}

# The global options, from the usage lines of 'cubicctl help'.
_cubicctl_global_options() {
	"$1" help 2>/dev/null | sed -n '/^usage:/,/^$/p' |
		grep -oE -- '(^|[[|])-[a-zA-Z]\b|--[a-z][a-z-]*' | sed 's/^[[|]//' | sort -u
}

# The options of command $2, from 'cubicctl $2 --help' (usage on stderr), one
# a line, with a trailing '=' when the option takes a value: somewhere in the
# text it is followed by a placeholder in capitals (--name NAME) or by a list
# of choices (--datapath exact|fast).
_cubicctl_command_options() {
	local opt arg
	local -A takes=()
	while read -r opt arg; do
		[ -n "${takes[$opt]+x}" ] || takes[$opt]=
		if [[ $arg =~ ^[A-Z]+$ || $arg == *"|"* ]]; then
			takes[$opt]="="
		fi
	done < <("$1" "$2" --help 2>&1 | grep -oE -- '--[a-z][a-z-]*( [A-Za-z|]+)?')
	for opt in "${!takes[@]}"; do
		printf '%s%s\n' "$opt" "${takes[$opt]}"
	done
}

# The tunable keys, from the table of 'cubicctl help --markdown'.
_cubicctl_keys() {
	"$1" help --markdown 2>/dev/null | sed -n 's/^| `\([a-z_0-9]*\)` |.*/\1/p'
}

# The presets, from the "presets" list of 'cubicctl help'.
_cubicctl_presets() {
	"$1" help 2>/dev/null | sed -n '/^presets/,/^$/{s/^  \([^ ]*\) .*/\1/p}'
}

# The datapaths, the last list of 'cubicctl help --reasons-json'.
_cubicctl_datapaths() {
	"$1" help --reasons-json 2>/dev/null | sed -n 's/.*"datapaths":\[//p' |
		grep -oE '"name":"[^"]*"' | sed 's/"name":"\(.*\)"/\1/'
}

# The loaded instances (and leftovers of an interrupted load): the pin folders.
_cubicctl_instances() {
	local d
	for d in "$_CUBICCTL_PIN_ROOT"/*/; do
		[ -d "$d" ] || continue
		d=${d%/}
		printf '%s\n' "${d##*/}"
	done 2>/dev/null
}

# The named network namespaces (ip netns), for flows --netns: /run/netns.
_cubicctl_netns() {
	local f
	for f in /run/netns/*; do
		[ -e "$f" ] || continue
		printf '%s\n' "${f##*/}"
	done 2>/dev/null
}

_cubicctl() {
	local bin cur raw cmd="" cmd_i=0 i w joined=0 opt="" val
	local -a words=() cands=()
	local cword=0

	COMPREPLY=()
	# With '=' in COMP_WORDBREAKS (bash's default) "preset=hy" reaches us as
	# "preset" "=" "hy": join such words again, so cur is the whole word, and
	# keep raw, the part of it bash replaces with what we reply.
	for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w == "=" && ${#words[@]} -gt 1 ]]; then
			words[-1]+="="
			joined=1
		elif ((joined)); then
			words[-1]+=$w
			joined=0
		else
			words+=("$w")
		fi
		((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
	done
	cur=${words[cword]-}
	# what bash replaces is the word it passes as $2: after a bare '=' (a
	# word of its own in COMP_WORDS) that is "", not "="
	raw=${COMP_WORDS[COMP_CWORD]-}
	if (($# >= 2)); then
		raw=$2
	elif [[ $raw == "=" ]]; then
		raw=
	fi

	bin=${words[0]-}
	[[ $bin == */* ]] || bin=$(type -P "$bin" || true)
	[ -n "$bin" ] && [ -x "$bin" ] || return 0

	# the command: the first word after the global options
	for ((i = 1; i < cword; i++)); do
		if [[ ${words[i]} != -* ]]; then
			cmd=${words[i]}
			cmd_i=$i
			break
		fi
	done

	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			cands=($(_cubicctl_global_options "$bin") --help)
		else
			cands=($(_cubicctl_commands "$bin"))
		fi
		COMPREPLY=($(compgen -W "${cands[*]}" -- "$cur" || true))
	elif [ "$cmd" = help ]; then
		# help COMMAND, or its options
		if [[ $cur == -* ]]; then
			cands=($(_cubicctl_command_options "$bin" help | tr -d =))
		elif ((cword == cmd_i + 1)); then
			cands=($(_cubicctl_commands "$bin"))
		fi
		COMPREPLY=($(compgen -W "${cands[*]}" -- "$cur" || true))
	else
		# the value of an option: "--name NAME" or "--name=NAME"
		if [[ $cur == --*=* ]]; then
			opt=${cur%%=*}
			val=${cur#*=}
		elif ((cword - 1 > cmd_i)) && [[ ${words[cword - 1]} == --* ]] &&
			_cubicctl_command_options "$bin" "$cmd" |
			grep -qxF -- "${words[cword - 1]}="; then
			opt=${words[cword - 1]}
			val=$cur
		fi
		if [ -n "$opt" ]; then
			case $opt in
			--name) [ "$cmd" = load ] || cands=($(_cubicctl_instances)) ;;
			--netns) cands=($(_cubicctl_netns)) ;;
			--preset) cands=($(_cubicctl_presets "$bin")) ;;
			--datapath) cands=($(_cubicctl_datapaths "$bin")) ;;
			esac
			if [[ $opt == --config* ]]; then
				compopt -o filenames 2>/dev/null || true
				mapfile -t COMPREPLY < <(compgen -f -- "$val" || true)
			else
				COMPREPLY=($(compgen -W "${cands[*]}" -- "$val" || true))
			fi
			[[ $cur == --*=* ]] && COMPREPLY=("${COMPREPLY[@]/#/$opt=}")
		elif [[ $cur == -* ]]; then
			cands=($({ _cubicctl_command_options "$bin" "$cmd" | tr -d =;
				echo --json; echo --help; } | sort -u))
			COMPREPLY=($(compgen -W "${cands[*]}" -- "$cur" || true))
		elif [[ $cmd == load || $cmd == set ]] && [[ $cur == preset=* ]]; then
			cands=($(_cubicctl_presets "$bin"))
			val=${cur#preset=}
			COMPREPLY=($(compgen -P preset= -W "${cands[*]}" -- "$val" || true))
		elif [[ $cmd == load ]] && [[ $cur == datapath=* ]]; then
			cands=($(_cubicctl_datapaths "$bin"))
			val=${cur#datapath=}
			COMPREPLY=($(compgen -P datapath= -W "${cands[*]}" -- "$val" || true))
		elif [[ $cmd == load || $cmd == set ]] && [[ $cur != *=* ]]; then
			cands=($(_cubicctl_keys "$bin") preset)
			[ "$cmd" = load ] && cands+=(datapath)
			COMPREPLY=($(compgen -S = -W "${cands[*]}" -- "$cur" || true))
			compopt -o nospace 2>/dev/null || true
		elif [ "$cmd" = get ]; then
			cands=($(_cubicctl_keys "$bin"))
			COMPREPLY=($(compgen -W "${cands[*]}" -- "$cur" || true))
		fi
	fi
	# bash puts a reply in place of raw only, the text after the last '=':
	# drop from each reply what comes before raw in the whole word
	if [ "$raw" != "$cur" ]; then
		for i in "${!COMPREPLY[@]}"; do
			COMPREPLY[i]=${COMPREPLY[i]#"${cur%"$raw"}"}
		done
	fi
	return 0
}

complete -F _cubicctl cubicctl
