package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// zipFolder zips the regular files of dir for an upload of a purpose folder (an app, a skill), paths
// relative to dir, leaving out hidden files and folders (such as .git). dir must hold marker at its root
// (manifest.json, SKILL.md); kind names the folder in the error when it does not ("an app folder").
func zipFolder(dir, marker, kind string) ([]byte, error) {
	if _, err := os.Stat(filepath.Join(dir, marker)); err != nil {
		return nil, fmt.Errorf("%s is not %s (no %s): %w", dir, kind, marker, err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return addToZip(zw, dir, p)
	})
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("zip %s: %w", dir, err)
	}
	return buf.Bytes(), nil
}

// addToZip adds the file p under its path relative to dir.
func addToZip(zw *zip.Writer, dir, p string) error {
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	w, err := zw.Create(filepath.ToSlash(rel))
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}
