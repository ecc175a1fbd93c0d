package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// config is what "svc login" stores: $XDG_CONFIG_HOME/svc/config.json or ~/.config/svc/config.json,
// mode 0600 in a directory of mode 0700.
type config struct {
	// BaseURL is the versioned API base URL.
	BaseURL string `json:"baseUrl,omitempty"`
	// APIKey is the stored secret.
	APIKey string `json:"apiKey,omitempty"`
	// LLMKey is the key of the LLM gateway (svc login --llm-key; SVC_LLM_KEY overrides it), used by the
	// llm commands instead of APIKey when set.
	LLMKey string `json:"llmKey,omitempty"`
	// Project is the default X-Svc-Project.
	Project string `json:"project,omitempty"`
	// Vault is the synced vault directory of "svc transfers" (set by hand; SVC_VAULT and --syncPath
	// override it).
	Vault string `json:"vault,omitempty"`
}

// configPath locates the config file from the environment only (so tests stay hermetic):
// $XDG_CONFIG_HOME/svc/config.json when XDG_CONFIG_HOME is an absolute path, else
// $HOME/.config/svc/config.json.
func configPath(getenv func(string) string) (string, error) {
	if xdg := getenv("XDG_CONFIG_HOME"); xdg != "" && filepath.IsAbs(xdg) {
		return filepath.Join(xdg, "svc", "config.json"), nil
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".config", "svc", "config.json"), nil
	}
	return "", errors.New("cannot locate the config directory: set HOME or XDG_CONFIG_HOME")
}

// loadConfig reads the config file; a missing file is an empty config.
func loadConfig(path string) (config, error) {
	var c config
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s is not valid JSON: %w (fix or delete it, then run svc login)", path, err)
	}
	return c, nil
}

// saveConfig writes the config file atomically: directory 0700, file 0600. A vault directory already in
// the file is kept when c names none (logging in does not forget the vault).
func saveConfig(path string, c config) error {
	if c.Vault == "" {
		if prev, err := loadConfig(path); err == nil {
			c.Vault = prev.Vault
		}
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("restrict %s: %w", dir, err)
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".config-*.json") // created with mode 0600
	if err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write config: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write config: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write config: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	return nil
}
