#!/usr/bin/env bash
# mmprof as a user installs it: --version, `make install` into a DESTDIR (the installed man page
# against the installed binary's --help, the completion loaded by bash-completion) and `make
# uninstall`, then the Debian package built by `make deb`, installed with apt on this machine,
# run from the PATH, and purged without a trace. (The tree's man page and completion against
# --help: tests/test_docs_options.sh.)
#   tests/test_install.sh BUILD_DIR [TEST...]   (run_tests.sh runs it, from the repository root;
#                                                 TEST names run only those)
# It prints cmocka's lines ([ RUN ], [ OK ], [ FAILED ], [ SKIPPED ]), which run_tests.sh counts.
# The package test needs root and apt; it skips, never overwrites, where mmprof is already
# installed on the machine.
set -u
build=${1:-build}
bin=${MMPROF_BIN:-$build/mmprof}
cuda=${CUDA:-/usr/local/cuda}
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# make runs from inside `make test`: the inner make must not take the outer one's job server.
submake() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory BUILD="$build" "$@"; }

# shellcheck source=tests/option_lists.sh
source "$(dirname "$0")/option_lists.sh"

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "skipped: $*"; exit 77; }

failed=0
run_test() {
    echo "[ RUN      ] $1"
    ("$1")
    case $? in
        0) echo "[       OK ] $1" ;;
        77) echo "[  SKIPPED ] $1" ;;
        *) echo "[  FAILED  ] $1"; failed=$((failed + 1)) ;;
    esac
}

# ---------- --version ----------

version_names_commit_and_cuda_toolkit() {
    local out
    out=$("$bin" --version) || fail "--version failed"
    echo "$out"
    local cudart
    cudart=$(sed -n 's/^#define CUDART_VERSION *\([0-9]*\).*/\1/p' "$cuda/include/cuda_runtime_api.h")
    [ -n "$cudart" ] || fail "no CUDART_VERSION in $cuda/include/cuda_runtime_api.h"
    grep -qx "built with CUDA $((cudart / 1000)).$((cudart % 1000 / 10)) (CUDART_VERSION $cudart)" <<<"$out" ||
        fail "--version does not name CUDA $cudart"
    grep -qx "commit $(src/cli/commit.sh .)" <<<"$out" ||
        fail "--version does not name commit $(src/cli/commit.sh .), the tree's (is $bin out of date? make all)"

    # src/cli/commit.sh on a repository of its own: the commit, -dirty, unknown.
    command -v git >/dev/null || skip "no git here to make a repository with"
    local repo=$tmp/repo
    mkdir -p "$repo/unpacked" && echo one >"$repo/file"
    git -C "$repo" init -q && git -C "$repo" add file &&
        git -C "$repo" -c user.name=t -c user.email=t@t commit -qm one || fail "git commit failed"
    local head
    head=$(git -C "$repo" rev-parse --short=12 HEAD)
    [ "$(src/cli/commit.sh "$repo")" = "$head" ] || fail "a clean tree is not '$head': $(src/cli/commit.sh "$repo")"
    echo two >"$repo/file"
    [ "$(src/cli/commit.sh "$repo")" = "$head-dirty" ] || fail "a modified file is not -dirty"
    git -C "$repo" checkout -q file && echo new >"$repo/new"
    [ "$(src/cli/commit.sh "$repo")" = "$head-dirty" ] || fail "an untracked file is not -dirty"
    # A tarball unpacked inside some other repository has no commit of its own.
    [ "$(src/cli/commit.sh "$repo/unpacked")" = unknown ] || fail "a folder inside another repository is not unknown"
    [ "$(MMPROF_COMMIT=abc src/cli/commit.sh "$repo")" = abc ] || fail "MMPROF_COMMIT is not used"
}

# ---------- make install / make uninstall ----------

stage=$tmp/stage
prefix=/usr/local
installed=(bin/mmprof share/man/man1/mmprof.1 share/bash-completion/completions/mmprof
           share/doc/mmprof/README.md)
for f in samples/*; do [ -f "$f" ] && installed+=("share/doc/mmprof/$f"); done  # files: samples/causes is test data

make_install_into_destdir() {
    submake -s install DESTDIR="$stage" PREFIX=$prefix >"$tmp/install.log" 2>&1 ||
        { cat "$tmp/install.log"; fail "make install failed"; }
    local f
    for f in "${installed[@]}"; do
        [ -f "$stage$prefix/$f" ] || fail "make install did not install $prefix/$f"
    done
    cmp -s docs/mmprof.1 "$stage$prefix/share/man/man1/mmprof.1" || fail "the installed man page is not docs/mmprof.1"
    cmp -s "$build/libmmprof_inject.so" "$stage$prefix/lib/mmprof/libmmprof_inject.so" ||
        fail "make install did not install the injection library as $prefix/lib/mmprof/libmmprof_inject.so"

    # The installed binary: no run path into the build tree, the system's cJSON.
    local mm=$stage$prefix/bin/mmprof runpath
    runpath=$(readelf -d "$mm" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
    echo "RUNPATH: $runpath"
    [ "$runpath" = "$cuda/lib64" ] || fail "RUNPATH '$runpath': expected only $cuda/lib64"
    local libs
    libs=$(ldd "$mm") || fail "ldd failed"
    ! grep -q "not found" <<<"$libs" || fail "libraries not found: $(grep "not found" <<<"$libs")"
    grep -qE 'libcjson\.so\.1 => /(usr/)?lib/' <<<"$libs" || fail "cJSON is not the system's: $(grep cjson <<<"$libs")"
    ! grep -q "$root" <<<"$libs" || fail "a library comes from the source tree: $(grep "$root" <<<"$libs")"

    # It runs, reports the installed sample as the built binary reports the tree's, and its --help
    # is its man page's.
    local out
    out=$("$mm" --size 64 --workloads cpu-openblas --color never) || fail "the installed mmprof could not run"
    grep -q "^cpu-openblas" <<<"$out" || fail "the installed mmprof's run has no cpu-openblas row"
    "$mm" report "$stage$prefix/share/doc/mmprof/samples/h200-2048.json" --color never >"$tmp/report.txt" ||
        fail "the installed mmprof could not report the installed sample"
    "$bin" report samples/h200-2048.json --color never >"$tmp/report-tree.txt" || fail "$bin report failed"
    cmp -s "$tmp/report.txt" "$tmp/report-tree.txt" ||
        fail "the installed mmprof reports the installed sample differently from $bin on samples/"
    # Every command: import too, on an installed trace.
    local traces=("$stage$prefix"/share/doc/mmprof/samples/*.kineto.json)
    [ -f "${traces[0]}" ] || fail "no PyTorch trace among the installed samples (samples/*.kineto.json)"
    "$mm" import "${traces[0]}" --quiet --html "$tmp/import.html" || fail "the installed mmprof could not import ${traces[0]}"
    [ -s "$tmp/import.html" ] || fail "import wrote no page"
    # profile finds its injection library in ../lib/mmprof (no GPU here: a program without CUDA).
    "$mm" profile --color never -- true 2>"$tmp/profile.txt" || { cat "$tmp/profile.txt"; fail "the installed mmprof could not profile 'true'"; }
    grep -q "made no CUDA calls" "$tmp/profile.txt" || fail "the installed mmprof profile did not report: $(cat "$tmp/profile.txt")"
    same_options "$mm" "$stage$prefix/share/man/man1/mmprof.1"
    # bash-completion looks in share/bash-completion/completions/ of each $XDG_DATA_DIRS folder
    # (by default /usr/local/share and /usr/share): PREFIX/share is one.
    if [ -f /usr/share/bash-completion/bash_completion ]; then
        local comp
        comp=$(XDG_DATA_DIRS="$stage$prefix/share" bash -c 'source /usr/share/bash-completion/bash_completion
               _completion_loader mmprof; complete -p mmprof' 2>&1)
        [ "$comp" = "complete -F _mmprof mmprof" ] || fail "bash-completion did not load the installed completion: $comp"
    fi

    # What the build puts in build/lib/mmprof/ goes to PREFIX/lib/mmprof/ (PKGLIB_SRC stands in
    # for that folder).
    mkdir -p "$tmp/pkglib" && echo "not a real library" >"$tmp/pkglib/libmmprof_inject.so"
    submake -s install DESTDIR="$tmp/stage2" PREFIX=$prefix PKGLIB_SRC="$tmp/pkglib" >"$tmp/install2.log" 2>&1 ||
        { cat "$tmp/install2.log"; fail "make install with a library to carry failed"; }
    cmp -s "$tmp/pkglib/libmmprof_inject.so" "$tmp/stage2$prefix/lib/mmprof/libmmprof_inject.so" ||
        fail "the build's library did not go to PREFIX/lib/mmprof/"
}

make_uninstall_removes_what_install_put() {
    [ -x "$stage$prefix/bin/mmprof" ] || fail "nothing installed (make_install_into_destdir failed)"
    # Files of someone else's, beside mmprof's: they stay, and so does their folder.
    echo keep >"$stage$prefix/bin/other-tool"
    echo keep >"$stage$prefix/share/doc/mmprof/my-notes"
    submake -s uninstall DESTDIR="$stage" PREFIX=$prefix >"$tmp/uninstall.log" 2>&1 ||
        { cat "$tmp/uninstall.log"; fail "make uninstall failed"; }
    local left
    left=$(cd "$stage" && find . -type f | sort)
    [ "$left" = "$(printf './usr/local/bin/other-tool\n./usr/local/share/doc/mmprof/my-notes')" ] ||
        fail "after make uninstall these files are left: $left"
    rm "$stage$prefix/share/doc/mmprof/my-notes"
    submake -s uninstall DESTDIR="$tmp/stage2" PREFIX=$prefix >/dev/null 2>&1 || fail "make uninstall failed"
    submake -s uninstall DESTDIR="$stage" PREFIX=$prefix >/dev/null 2>&1 || fail "make uninstall failed"
    [ ! -e "$stage$prefix/share/doc/mmprof" ] || fail "the empty share/doc/mmprof/ was left"
    [ -z "$(cd "$tmp/stage2" && find . -type f)" ] || fail "files left after uninstalling lib/mmprof: $(cd "$tmp/stage2" && find . -type f)"
    [ ! -e "$tmp/stage2$prefix/lib/mmprof" ] || fail "lib/mmprof was left"
}

# ---------- the Debian package ----------

deb_builds_and_leaves_the_tree_clean() {
    command -v dpkg-buildpackage >/dev/null || fail "dpkg-buildpackage missing (make test-deps installs dpkg-dev)"
    local before=
    [ -e .git ] && before=$(git status --porcelain)
    local t0=$SECONDS
    # xz at level 1 rather than dpkg-deb's 6: the package is 6% larger and takes 3 s to compress
    # instead of 12 (the samples are 33 MB); what this test checks does not depend on the level.
    # DEB_REUSE: the package links the objects make test already compiled (the Makefile says why).
    DPKG_DEB_COMPRESSOR_LEVEL=1 submake deb DEB_REUSE=1 >"$tmp/deb.log" 2>&1 || { tail -40 "$tmp/deb.log"; fail "make deb failed"; }
    echo "make deb took $((SECONDS - t0)) s"
    [ ! -e .git ] || [ "$(git status --porcelain)" = "$before" ] ||
        fail "make deb changed the tree: $(git status --porcelain)"
    local debs=("$build"/mmprof_*.deb)
    [ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "make deb made [${debs[*]}], not one $build/mmprof_*.deb"
    local version depends
    version=$(dpkg-deb -f "${debs[0]}" Version)
    depends=$(dpkg-deb -f "${debs[0]}" Depends)
    echo "${debs[0]}: Version $version; Depends: $depends"
    "$bin" --version | grep -q "^mmprof $version " || fail "the package's version $version is not mmprof's"
    # dpkg-shlibdeps computed it: the system's cJSON and OpenBLAS; the toolkit is no package.
    grep -q libcjson1 <<<"$depends" && grep -q libopenblas <<<"$depends" || fail "Depends lacks cJSON or OpenBLAS"
    ! grep -qi cuda <<<"$depends" || fail "Depends names CUDA, which no Debian package provides"
}

# dpkg drops files that /etc/dpkg/dpkg.cfg.d/ excludes (slim Docker images exclude
# /usr/share/man and /usr/share/doc): the apt options that include ours again for this one
# install, leaving the machine's configuration as it is. Arguments: the package's files.
# $DPKG_CFG_DIR stands in for /etc/dpkg/dpkg.cfg.d in path_includes_follow_dpkg_excludes.
path_includes() {
    local excludes f p
    excludes=$(cat "${DPKG_CFG_DIR:-/etc/dpkg/dpkg.cfg.d}"/* 2>/dev/null | sed -n 's/^path-exclude[= ]*//p')
    [ -n "$excludes" ] || return 0
    for f in "$@"; do
        while IFS= read -r p; do
            # shellcheck disable=SC2053 # $p is a glob
            if [[ $f == $p ]]; then
                echo "-o Dpkg::Options::=--path-include=$f"
                echo "note: /etc/dpkg/dpkg.cfg.d excludes $f ($p); included for this install only" >&2
                break
            fi
        done <<<"$excludes"
    done
}

# The configuration of a slim Docker image: man pages and docs excluded.
path_includes_follow_dpkg_excludes() {
    mkdir -p "$tmp/dpkg.cfg.d"
    printf '%s\n' 'path-exclude /usr/share/man/*' 'path-exclude=/usr/share/doc/*' \
        'path-include /usr/share/doc/*/copyright' >"$tmp/dpkg.cfg.d/docker"
    local got want
    got=$(DPKG_CFG_DIR=$tmp/dpkg.cfg.d path_includes /usr/bin/mmprof /usr/share/man/man1/mmprof.1.gz \
          /usr/share/doc/mmprof/README.md.gz 2>/dev/null)
    want=$(printf '%s\n' "-o Dpkg::Options::=--path-include=/usr/share/man/man1/mmprof.1.gz" \
           "-o Dpkg::Options::=--path-include=/usr/share/doc/mmprof/README.md.gz")
    [ "$got" = "$want" ] || fail "path_includes gave [$got], not [$want]"
    got=$(DPKG_CFG_DIR=$tmp/none path_includes /usr/share/man/man1/mmprof.1.gz)
    [ -z "$got" ] || fail "path_includes without a configuration gave [$got]"
}

deb_installs_runs_and_purges_cleanly() {
    [ "$(id -u)" = 0 ] || skip "installing a package needs root (CI runs as root)"
    command -v apt-get >/dev/null || skip "no apt-get"
    local deb=("$build"/mmprof_*.deb)
    [ -f "${deb[0]}" ] || fail "no package (deb_builds_and_leaves_the_tree_clean failed)"
    # Never replace or remove what this machine already has.
    ! dpkg -s mmprof >/dev/null 2>&1 || skip "mmprof is installed on this machine; not replacing it"
    local files f
    files=$(dpkg-deb -c "${deb[0]}" | awk '$1 !~ /^d/ {sub(/^\./, "", $6); print $6}')
    for f in $files; do
        [ ! -e "$f" ] || skip "$f exists on this machine; not overwriting it"
    done
    command -v mmprof >/dev/null && skip "an mmprof is on the PATH already ($(command -v mmprof))"

    # Purged on the way out whatever happens below.
    trap 'apt-get purge -y -qq mmprof >/dev/null 2>&1' EXIT
    local t0=$SECONDS
    # shellcheck disable=SC2046 # one word per option
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(path_includes $files) "./${deb[0]}" >"$tmp/apt.log" 2>&1 ||
        { cat "$tmp/apt.log"; fail "apt-get install ./${deb[0]} failed"; }
    echo "apt-get install took $((SECONDS - t0)) s"
    [ "$(command -v mmprof)" = /usr/bin/mmprof ] || fail "mmprof on the PATH is '$(command -v mmprof)', not /usr/bin/mmprof"
    mmprof --size 256 --color never >"$tmp/run.txt" 2>&1 || { cat "$tmp/run.txt"; fail "mmprof --size 256 failed"; }
    grep -q "^cpu-openblas" "$tmp/run.txt" || fail "mmprof --size 256 reported no cpu-openblas row"
    [ "$(mmprof --version | sed -n 2p)" = "commit $(src/cli/commit.sh .)" ] ||
        fail "the package's mmprof says '$(mmprof --version | sed -n 2p)', not this tree's commit"
    local page
    page=$(man -w mmprof) || fail "man -w mmprof found no page"
    [ "$page" = /usr/share/man/man1/mmprof.1.gz ] || fail "man -w mmprof: $page"
    # bash-completion loads the completion the first time mmprof is completed (its loader
    # returns 124, "try again", once it has).
    local comp
    comp=$(bash -c 'source /usr/share/bash-completion/bash_completion; _completion_loader mmprof; complete -p mmprof' 2>&1)
    [ "$comp" = "complete -F _mmprof mmprof" ] || fail "bash-completion did not load mmprof's completion: $comp"

    local listed
    listed=$(dpkg -L mmprof) || fail "dpkg -L mmprof failed"
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq mmprof >"$tmp/purge.log" 2>&1 || { cat "$tmp/purge.log"; fail "apt-get purge mmprof failed"; }
    trap - EXIT
    ! dpkg -s mmprof >/dev/null 2>&1 || fail "dpkg still knows mmprof after the purge"
    local left=
    for f in $listed; do
        # Folders the system shares (/usr/bin, /usr/share/man) stay; mmprof's own go.
        if [ -d "$f" ]; then case $f in /usr/share/doc/mmprof*) left="$left $f" ;; esac
        elif [ -e "$f" ]; then left="$left $f"; fi
    done
    [ -z "$left" ] || fail "left after the purge:$left"
    echo "$(wc -l <<<"$listed") paths listed by dpkg -L, none left after the purge"
}

tests=(version_names_commit_and_cuda_toolkit make_install_into_destdir
       make_uninstall_removes_what_install_put deb_builds_and_leaves_the_tree_clean
       path_includes_follow_dpkg_excludes deb_installs_runs_and_purges_cleanly)
[ $# -gt 1 ] && tests=("${@:2}")
for t in "${tests[@]}"; do run_test "$t"; done
[ $failed -eq 0 ]
