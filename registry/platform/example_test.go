package platform_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/toolhint/toolhint/executor"
	"github.com/toolhint/toolhint/registry"
	"github.com/toolhint/toolhint/registry/platform"
)

func ExampleNewFiles() {
	dir, _ := os.MkdirTemp("", "agent")
	defer os.RemoveAll(dir)
	files, err := platform.NewFiles(platform.FilesConfig{Root: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer files.Close()

	// The host picks the tools it offers: here all but delete_file.
	reg := registry.New()
	for _, spec := range files.Tools() {
		if spec.Name != platform.ToolDeleteFile {
			reg.MustRegister(spec)
		}
	}
	ex, err := executor.New(executor.Config{Registry: reg})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ex.Close()
	ctx := context.Background()
	for _, call := range []executor.Call{
		{Name: platform.ToolWriteFile, Arguments: json.RawMessage(`{"path":"notes.txt","content":"buy milk"}`)},
		{Name: platform.ToolReadFile, Arguments: json.RawMessage(`{"path":"notes.txt"}`)},
		{Name: platform.ToolReadFile, Arguments: json.RawMessage(`{"path":"../../etc/passwd"}`)},
	} {
		fmt.Println(ex.Execute(ctx, call).ForModel())
	}
	// Output:
	// {"path":"notes.txt","bytes_written":8,"size":8,"created":true}
	// {"path":"notes.txt","size":8,"content":"buy milk","encoding":"utf-8"}
	// error (tool_error): read_file failed: platform: path refused: "../../etc/passwd" climbs out with ".."
}

func ExampleNewCommand() {
	dir, _ := os.MkdirTemp("", "agent")
	defer os.RemoveAll(dir)
	cmd, err := platform.NewCommand(platform.CommandConfig{Dir: dir, Programs: []string{"/usr/bin/echo"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cmd.Close()
	run := cmd.Tool().Run
	ctx := context.Background()

	// No shell reads the arguments: they reach echo as they are.
	out, err := run(ctx, json.RawMessage(`{"command":"echo","args":["hi; touch pwned $(id)"]}`))
	fmt.Println(string(out), err)
	// Programs outside the allow-list, and blocked patterns, are refused before anything runs.
	_, err = run(ctx, json.RawMessage(`{"command":"sh","args":["-c","id"]}`))
	fmt.Println(errors.Is(err, platform.ErrCommandRefused))
	_, err = run(ctx, json.RawMessage(`{"command":"echo","args":["x; rm -rf /"]}`))
	fmt.Println(errors.Is(err, platform.ErrCommandRefused))
	// Output:
	// {"exit_code":0,"stdout":"hi; touch pwned $(id)\n","stderr":""} <nil>
	// true
	// true
}

func ExampleNewHTTP() {
	h, err := platform.NewHTTP(platform.HTTPConfig{AllowHosts: []string{"api.github.com"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for _, u := range []string{
		"http://169.254.169.254/latest/meta-data/",
		"http://2130706433/",
		"https://example.com/",
	} {
		args, _ := json.Marshal(map[string]string{"url": u})
		_, err := h.Tool().Run(ctx, args)
		fmt.Println(err)
	}
	// Output:
	// platform: request refused: host "169.254.169.254" is not allowed
	// platform: request refused: host "2130706433" is a number but not a canonical IP address
	// platform: request refused: host "example.com" is not allowed
}
