#!/bin/sh
# mk/release.sh KINDS ARCHES: packs the static binaries of mk/release.mk
# into dist/.  KINDS is a list of dist (the tar.gz archive and its SPDX
# SBOM), deb and rpm; ARCHES a list of amd64 and arm64.  dist/checksums.txt
# is then written anew over every artefact of this version in dist/.
#
# From make (the environment): VERSION_H (the static binaries' version.h),
# SOURCE_DATE_EPOCH (the commit's time), DOC_FILES, DOC_TREE, SCHEMA_FILES
# and MAN_PAGES (the lists of mk/install.mk and mk/gencli.mk),
# COMPLETION_DIR, PYTHON.
#
# Reproducible: every file is staged with a fixed mode and the commit's
# time; the archive lists its files (no directories, so extracting it over
# /usr/local changes no existing directory) sorted, owned by 0:0, and is
# compressed with gzip -n; dpkg-deb and rpmbuild get the same tree and
# SOURCE_DATE_EPOCH.
set -eu

kinds=$1
arches=$2
out=dist
work=build/release
: "${SOURCE_DATE_EPOCH:?}" "${VERSION_H:?}" "${COMPLETION_DIR:=build/static/completion}" "${PYTHON:=python3}"
export SOURCE_DATE_EPOCH LC_ALL=C TZ=UTC

define() { sed -n "s/^#define $1 \"\(.*\)\"$/\1/p" "$VERSION_H"; }
version=$(define SLIPWAY_VERSION)
commit=$(define SLIPWAY_COMMIT)
[ -n "$version" ] || { echo "release.sh: no version in $VERSION_H" >&2; exit 1; }
# Package versions sort as dpkg and rpm compare them: a development build
# of the next release sorts before it (0.1.0-dev+gSHA -> 0.1.0~dev+gSHA), a
# build after a release tag after the tag (1.2.3-4-gSHA -> 1.2.3+4+gSHA).
pkgversion=$(printf '%s' "$version" | sed -e 's/-dev+/~dev+/' -e 's/-/+/g')
maintainer=$(git log -1 --format='%an <%ae>' 2>/dev/null || echo 'slipway authors <slipway@localhost>')
summary=$(sed -n 1p mk/release/description.txt)

triplet() { case $1 in amd64) echo x86_64-linux-gnu ;; arm64) echo aarch64-linux-gnu ;; esac; }
rpmarch() { case $1 in amd64) echo x86_64 ;; arm64) echo aarch64 ;; esac; }
stripper() { case $1 in amd64) echo "${STRIP_amd64:-strip}" ;; arm64) echo "${STRIP_arm64:-aarch64-linux-gnu-strip}" ;; esac; }

# stage LAYOUT ARCH DEST: the installed tree of one layout.
#   prefix  bin/, share/... for `tar -C /usr/local -xzf` (zsh's site-functions)
#   deb     usr/..., man pages gzip'd, zsh's vendor-completions, the licence
#           in the Debian copyright file, a Debian changelog, lintian overrides
#   rpm     usr/..., man pages gzip'd, zsh's site-functions, the licence
#           under /usr/share/licenses
stage() {
	layout=$1 arch=$2 d=$3
	case $layout in
	prefix) p= zsh=share/zsh/site-functions ;;
	deb) p=usr/ zsh=usr/share/zsh/vendor-completions ;;
	rpm) p=usr/ zsh=usr/share/zsh/site-functions ;;
	esac
	doc=${p}share/doc/slipway
	rm -rf "$d"
	mkdir -p "$d/${p}bin"
	$(stripper "$arch") --remove-section=.comment -o "$d/${p}bin/slipway" "build/static/$arch/slipway"
	chmod 0755 "$d/${p}bin/slipway"
	put() { # SRC DEST
		mkdir -p "$(dirname "$d/$2")"
		install -m 0644 "$1" "$d/$2"
	}
	for m in $MAN_PAGES; do
		if [ "$layout" = prefix ]; then
			put "$m" "${p}share/man/man1/$(basename "$m")"
		else
			mkdir -p "$d/${p}share/man/man1"
			gzip -9n < "$m" > "$d/${p}share/man/man1/$(basename "$m").gz"
		fi
	done
	put "$COMPLETION_DIR/slipway.bash" "${p}share/bash-completion/completions/slipway"
	put "$COMPLETION_DIR/_slipway" "$zsh/_slipway"
	put "$COMPLETION_DIR/slipway.fish" "${p}share/fish/vendor_completions.d/slipway.fish"
	for sf in $SCHEMA_FILES; do put "$sf" "${p}share/slipway/schemas/$(basename "$sf")"; done
	for f in $DOC_FILES; do
		case $layout/$(basename "$f") in
		deb/LICENSE) ;;				# in the copyright file
		rpm/LICENSE) put "$f" "${p}share/licenses/slipway/LICENSE" ;;
		*) put "$f" "$doc/$(basename "$f")" ;;
		esac
	done
	for f in $DOC_TREE; do put "$f" "$doc/${f#docs/}"; done
	if [ "$layout" = deb ]; then
		deb_copyright > "$d/$doc/copyright"
		chmod 0644 "$d/$doc/copyright"
		deb_changelog | gzip -9n > "$d/$doc/changelog.gz"
		put mk/release/lintian-overrides "${p}share/lintian/overrides/slipway"
	fi
	find "$d" -type d -exec chmod 0755 {} +
	find "$d" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
}

# The machine-readable Debian copyright file: ours, and what the static
# binary carries of Debian's libraries (the SBOM names each with its version).
deb_copyright() {
	cat <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: slipway
Comment: usr/bin/slipway is statically linked with Debian 12's static
 archives of libgit2, Jansson, OpenSSL's libcrypto, xxHash, PCRE2, zlib,
 http-parser, mbedTLS's libmbedcrypto, GCC's runtime and glibc; the SPDX
 SBOM published beside this package names each with its version and
 licence.

Files: *
Copyright: $(sed -n 's/^Copyright (c) //p' LICENSE)
License: BSD-3-Clause

License: BSD-3-Clause
EOF
	sed -n '/^Redistribution/,$p' LICENSE | sed -e 's/^$/./' -e 's/^/ /'
}

deb_changelog() {
	printf 'slipway (%s) unstable; urgency=medium\n\n' "$pkgversion"
	printf '  * Release build of commit %s; the changes are in\n' "$commit"
	printf '    /usr/share/doc/slipway/CHANGELOG.md.\n\n'
	printf ' -- %s  %s\n' "$maintainer" "$(date -R -d "@$SOURCE_DATE_EPOCH")"
}

# The description of mk/release/description.txt as a control field.
deb_description() {
	printf 'Description: %s\n' "$summary"
	sed -n '2,$p' mk/release/description.txt | sed -e 's/^$/./' -e 's/^/ /'
}

# dpkg's Installed-Size: KiB, each file rounded up, each directory 1.
installed_size() {
	find "$1" -path "$1/DEBIAN" -prune -o \( -type f -printf '%s\n' \) -o \( -type d -printf '1024\n' \) |
		awk '{ s += int(($1 + 1023) / 1024) } END { print s }'
}

build_dist() {
	arch=$1
	name=slipway_${version}_linux_$arch
	s=$work/prefix-$arch
	stage prefix "$arch" "$s"
	(cd "$s" && find . -type f | sed 's|^\./||' | sort) > "$work/$name.list"
	tar --format=gnu --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
		--no-recursion -C "$s" -T "$work/$name.list" -cf - | gzip -9n > "$out/$name.tar.gz.tmp"
	mv "$out/$name.tar.gz.tmp" "$out/$name.tar.gz"
	"$PYTHON" mk/sbom.py --binary "$s/bin/slipway" --map "build/static/$arch/slipway.map" \
		--name "$name" --version "$version" --commit "$commit" --arch "$arch" \
		--contents build/sysroot/arm64/contents.tsv --sysroot build/sysroot/arm64/root \
		> "$out/$name.sbom.spdx.json.tmp"
	mv "$out/$name.sbom.spdx.json.tmp" "$out/$name.sbom.spdx.json"
	echo "  DIST    $out/$name.tar.gz ($(wc -l < "$work/$name.list") files)"
	echo "  SBOM    $out/$name.sbom.spdx.json"
}

build_deb() {
	arch=$1
	r=$work/deb-$arch
	stage deb "$arch" "$r"
	mkdir -p "$r/DEBIAN"
	{
		printf 'Package: slipway\nVersion: %s\nArchitecture: %s\n' "$pkgversion" "$arch"
		printf 'Maintainer: %s\nInstalled-Size: %s\n' "$maintainer" "$(installed_size "$r")"
		printf 'Suggests: gh\nSection: devel\nPriority: optional\n'
		deb_description
	} > "$r/DEBIAN/control"
	(cd "$r" && find usr -type f | sort | xargs md5sum) > "$r/DEBIAN/md5sums"
	chmod 0644 "$r/DEBIAN/control" "$r/DEBIAN/md5sums"
	touch -h -d "@$SOURCE_DATE_EPOCH" "$r/DEBIAN" "$r/DEBIAN/control" "$r/DEBIAN/md5sums"
	f=$out/slipway_${pkgversion}_$arch.deb
	dpkg-deb --root-owner-group -Zxz --threads-max=1 --build "$r" "$f.tmp" >/dev/null
	mv "$f.tmp" "$f"
	echo "  DEB     $f"
}

build_rpm() {
	arch=$1
	s=$work/rpm-$arch
	stage rpm "$arch" "$s"
	top=$(pwd)/$work/rpmbuild-$arch
	rm -rf "$top" && mkdir -p "$top"
	description=$(sed -n '2,$p' mk/release/description.txt)
	# The description goes in through a file: it has several lines.
	printf '%s\n' "$description" > "$top/description"
	# RPM summaries start with a capital letter, Debian's synopses need not.
	rsummary=$(printf '%s' "$summary" | sed 's/^./\U&/')
	awk -v stage="$(pwd)/$s" -v version="$pkgversion" -v summary="$rsummary" -v commit="$commit" \
	    -v maint="$maintainer" -v date="$(date -d "@$SOURCE_DATE_EPOCH" '+%a %b %d %Y')" -v descfile="$top/description" '
		/@DESCRIPTION@/ { while ((getline l < descfile) > 0) print l; next }
		{ gsub(/@STAGE@/, stage); gsub(/@VERSION@/, version); gsub(/@SUMMARY@/, summary);
		  gsub(/@COMMIT@/, commit); gsub(/@MAINTAINER@/, maint); gsub(/@DATE@/, date); print }
	' mk/release/slipway.spec.in > "$top/slipway.spec"
	rpmbuild -bb --quiet --target "$(rpmarch "$arch")-linux" \
		--define "_topdir $top" --define "_rpmdir $top/out" \
		--define "_build_id_links none" --define "debug_package %{nil}" \
		--define "__os_install_post %{nil}" --define "_buildhost reproducible" \
		--define "use_source_date_epoch_as_buildtime 1" \
		--define "clamp_mtime_to_source_date_epoch 1" \
		"$top/slipway.spec" >"$top/log" 2>&1 || { cat "$top/log" >&2; exit 1; }
	f=$(find "$top/out" -name '*.rpm')
	mv "$f" "$out/$(basename "$f")"
	echo "  RPM     $out/$(basename "$f")"
}

mkdir -p "$out" "$work"
for kind in $kinds; do
	for arch in $arches; do
		case $kind in
		dist) rm -f "$out"/slipway_*_linux_"$arch".* ;;
		deb) rm -f "$out"/slipway_*_"$arch".deb ;;
		rpm) rm -f "$out"/slipway-*."$(rpmarch "$arch")".rpm ;;
		esac
		"build_$kind" "$arch"
	done
done

# Every artefact in dist/ (of this version, as the lines above removed the
# others of each kind built).
(cd "$out" && ls | grep -v '^checksums\.txt' | grep -v '\.tmp$' | sort | xargs -r sha256sum) > "$out/checksums.txt.tmp"
mv "$out/checksums.txt.tmp" "$out/checksums.txt"
echo "  SUM     $out/checksums.txt ($(wc -l < "$out/checksums.txt") files)"
