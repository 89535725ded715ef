package main

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"
)

// setVersions makes every module of the work tree at repo require the
// others at version, and go.work point version at the tree, for the
// commit of a release.
func setVersions(repo, version string) error {
	t := &tree{Dir: repo}
	mods, err := modules(t)
	if err != nil {
		return err
	}
	ours := map[string]string{}
	for _, m := range mods {
		ours[m.Path] = m.Dir
	}
	for _, m := range mods {
		name := filepath.Join(repo, filepath.FromSlash(m.Dir), "go.mod")
		data, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		f, err := modfile.Parse(name, data, nil)
		if err != nil {
			return err
		}
		changed := false
		for _, r := range f.Require {
			if _, ok := ours[r.Mod.Path]; ok && r.Mod.Version != version {
				if err := f.AddRequire(r.Mod.Path, version); err != nil {
					return err
				}
				changed = true
			}
		}
		if !changed {
			continue
		}
		out, err := f.Format()
		if err != nil {
			return err
		}
		if err := os.WriteFile(name, out, 0o644); err != nil {
			return err
		}
		fmt.Printf("%s/go.mod\n", m.Dir)
	}
	name := filepath.Join(repo, "go.work")
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	w, err := modfile.ParseWork(name, data, nil)
	if err != nil {
		return err
	}
	for _, r := range w.Replace {
		if dir, ok := ours[r.Old.Path]; ok && r.Old.Version != version {
			if err := w.DropReplace(r.Old.Path, r.Old.Version); err != nil {
				return err
			}
			if err := w.AddReplace(r.Old.Path, version, "./"+dir, ""); err != nil {
				return err
			}
		}
	}
	w.Cleanup()
	if err := os.WriteFile(name, modfile.Format(w.Syntax), 0o644); err != nil {
		return err
	}
	fmt.Println("go.work")
	return nil
}
