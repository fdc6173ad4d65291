#!/bin/sh
# fuzz-wlaccount.sh — a short, reproducible fuzzing run of what xcap-run's
# Wayland relay reads of the decoded messages (descriptors, pools,
# buffers, damage, commits), seeded with weston-simple-shm's messages.
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
mkdir -p "$workdir/seeds"
printf '%s\n' 'wl_shm@5.create_pool(new id wl_shm_pool@9, fd, 250000)' \
	'wl_shm_pool@9.create_buffer(new id wl_buffer@10, 0, 250, 250, 1000, 1)' \
	'wl_surface@3.attach(wl_buffer@10, 0, 0)' 'wl_surface@3.damage(20, 20, 210, 210)' \
	'wl_surface@3.damage_buffer(0, 0, 2147483647, 2147483647)' 'wl_surface@3.set_buffer_scale(2)' \
	'wl_surface@3.commit()' '<wl_buffer@10.release()' 'wl_shm_pool@9.resize(500000)' \
	'wl_buffer@10.destroy()' 'wl_surface@3.commit()' >"$workdir/seeds/shm"
printf '%s\n' 'zwp_linux_buffer_params_v1@7.add(fd, 0, 0, 1024, 0, 0)' \
	'zwp_linux_buffer_params_v1@7.create_immed(new id wl_buffer@8, 64, 64, 875713112, 0)' \
	'wl_surface@3.attach(wl_buffer@8, 0, 0)' 'wl_surface@3.commit()' \
	'<wl_keyboard@4.keymap(1, fd, 4096)' >"$workdir/seeds/dmabuf"
"$top_builddir/tests/fuzz/fuzz-wlaccount" -runs="${FUZZ_RUNS:-3000}" -seed=13 -max_len=4096 \
	"$workdir/seeds" || fail "fuzz-wlaccount found a problem"
