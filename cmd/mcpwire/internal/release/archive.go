package main

import (
	"archive/tar"
	"archive/zip"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// An entry is one file of an archive.
type entry struct {
	Name string // the name in the archive, below its top directory
	Src  string // the file to read
	Exec bool   // an executable
}

// writeArchive writes the entries into name (.tar.gz, or .zip for
// windows) under one top directory, top. Nothing of the machine that
// builds it gets in: every file has the time mtime, no owner, and a mode
// of 0755 or 0644; the same files give the same bytes.
func writeArchive(name, top string, mtime time.Time, entries []entry) (err error) {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	if strings.HasSuffix(name, ".zip") {
		return writeZip(f, top, mtime, entries)
	}
	return writeTarGz(f, top, mtime, entries)
}

func writeTarGz(w io.Writer, top string, mtime time.Time, entries []entry) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression) // no name, no time in its header
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: top + "/", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: mtime, Format: tar.FormatUSTAR}); err != nil {
		return err
	}
	for _, e := range entries {
		data, err := os.ReadFile(e.Src)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: top + "/" + e.Name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data)), ModTime: mtime, Format: tar.FormatUSTAR}
		if e.Exec {
			h.Mode = 0o755
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, top string, mtime time.Time, entries []entry) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	for _, e := range entries {
		data, err := os.ReadFile(e.Src)
		if err != nil {
			return err
		}
		h := &zip.FileHeader{Name: top + "/" + e.Name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(0o644)
		if e.Exec {
			h.SetMode(0o755)
		}
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// writeSums writes SHA256SUMS in dir for the files named, in the format
// of sha256sum (sha256sum -c SHA256SUMS checks them).
func writeSums(dir string, names []string) error {
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		f, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), n)
	}
	return os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(b.String()), 0o644)
}
