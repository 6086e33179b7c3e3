#!/bin/sh
# tools/deps.sh — finds what locksim needs and installs the missing Debian
# packages (make deps). Idempotent: installs nothing when all is present.
set -u

missing=""
need_pkg() {   # need_pkg DEBIAN-PACKAGE
    case " $missing " in *" $1 "*) ;; *) missing="$missing $1" ;; esac
}
# Libraries, found through pkg-config (pkg-config itself first).
command -v pkg-config >/dev/null 2>&1 || need_pkg pkg-config
for pair in lua5.1:liblua5.1-0-dev lua5.1-bitop:lua-bitop-dev \
            lua5.1-cjson:lua-cjson-dev hiredis:libhiredis-dev check:check \
            inih:libinih-dev libfiu:libfiu-dev libxxhash:libxxhash-dev \
            nettle:nettle-dev jemalloc:libjemalloc-dev \
            jansson:libjansson-dev; do
    mod=${pair%%:*}; pkg=${pair#*:}
    pkg-config --exists "$mod" 2>/dev/null || need_pkg "$pkg"
done
# Header-only libraries.
[ -f /usr/include/uthash.h ] || need_pkg uthash-dev
# Programs the tests, the benchmark and the reports run.
for pair in cc:gcc make:make redis-server:redis-server gnuplot:gnuplot-nox \
            parallel:parallel python3:python3; do
    cmd=${pair%%:*}; pkg=${pair#*:}
    command -v "$cmd" >/dev/null 2>&1 || need_pkg "$pkg"
done
# Perl's TAP::Parser reads the TAP the tests write (Debian: perl's modules).
perl -MTAP::Parser -e 1 >/dev/null 2>&1 || need_pkg perl
# Extra tools named by the caller (e.g. LOCKSIM_DEPS_EXTRA="clang:clang"),
# files (an absolute path: /usr/lib/...:package), or "libfuzzer": clang's
# libFuzzer runtime, from the libclang-rt-N-dev of the clang installed.
for pair in ${LOCKSIM_DEPS_EXTRA:-}; do
    cmd=${pair%%:*}; pkg=${pair#*:}
    case "$cmd" in
    libfuzzer)
        if command -v clang >/dev/null 2>&1; then
            rt=$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)
            major=$(clang -dumpversion 2>/dev/null | cut -d. -f1)
            case "$rt" in /*) [ -e "$rt" ] || need_pkg "libclang-rt-$major-dev" ;;
                          *) need_pkg "libclang-rt-$major-dev" ;; esac
        else
            need_pkg clang; need_pkg "$pkg"
        fi ;;
    /*) [ -e "$cmd" ] || need_pkg "$pkg" ;;
    *) command -v "$cmd" >/dev/null 2>&1 || need_pkg "$pkg" ;;
    esac
done

if [ -z "$missing" ]; then
    echo "deps: all present"
    exit 0
fi
echo "deps: missing Debian packages:$missing"
if [ "$(id -u)" = 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "deps: not root and no password-less sudo; run this as root, then 'make' again:" >&2
    echo "    apt-get update && apt-get install -y$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null || { echo "deps: apt-get update failed" >&2; exit 1; }
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null ||
    { echo "deps: apt-get install -y$missing failed" >&2; exit 1; }
echo "deps: installed$missing"
