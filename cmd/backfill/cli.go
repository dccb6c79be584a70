package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tkgraph/backfill/internal/suggestions"
	"github.com/tkgraph/backfill/internal/termtext"
)

// cli is what the commands take from their surroundings; tests give their own.
type cli struct {
	out io.Writer        // the commands' standard output (errors and logs go to os.Stderr)
	now func() time.Time // the default of query's and timeline's times
}

// exitCode is the error a command returns for an exit code other than 0; the command has
// printed its message already.
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit %d", int(c)) }

// done turns a command's exit code into what its RunE returns.
func done(code int) error {
	if code == exitOK {
		return nil
	}
	return exitCode(code)
}

// execute runs the command line args (without the program name) and returns the exit code.
// Errors cobra finds itself (an unknown command or flag, a flag's value, a missing argument)
// are usage errors: exit 2.
func execute(ctx context.Context, c *cli, args []string) int {
	root := newRoot(c)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	var code exitCode
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &code):
		return int(code)
	}
	msg := termtext.Message(strings.TrimRight(err.Error(), "\n"))
	fmt.Fprintf(os.Stderr, "%s: %s\nRun '%s --help' for usage.\n", cmd.CommandPath(), msg, cmd.CommandPath())
	return exitUsage
}

// commandUsageError is a usage error found where the command line is read together with the
// job (a --set that reaches no key or has a value of the wrong type); fail prints it as
// usageError does, naming the command.
type commandUsageError struct {
	cmd *cobra.Command
	err error
}

func (e *commandUsageError) Error() string { return e.err.Error() }
func (e *commandUsageError) Unwrap() error { return e.err }

// usageError prints a usage error a command found after cobra's parsing (a flag value it
// checks itself) and returns exit 2.
func usageError(cmd string, err error) int {
	fmt.Fprintf(os.Stderr, "backfill %s: %s\nRun 'backfill %s --help' for usage.\n", cmd, termtext.Message(err.Error()), cmd)
	return exitUsage
}

// newRoot builds the command tree.
func newRoot(c *cli) *cobra.Command {
	cobra.EnableCommandSorting = false // in the order of the pipeline
	root := &cobra.Command{
		Use:   "backfill",
		Short: "Build temporal knowledge graphs from years of history",
		Long: `backfill turns conversations and business JSON records into a temporal knowledge graph (the
model of the Zep paper, as Graphiti implements it online), in a batch that is checkpointed and
resumable. Every fact keeps when it was true in the world (valid_at, invalid_at) and when the
system knew it (created_at, expired_at).

Exit codes: 0 done, 1 failed, 2 usage error, 3 finished with quarantined input, failed units or a
budget stop, 130 interrupted by SIGINT, 143 by SIGTERM (run the same command again to resume).

Environment: BACKFILL_LOG_LEVEL=debug|info|warn|error sets the log level (logs go to stderr;
another value is an error).`,
		Version:       version().String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          unknownCommand,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFlags(cmd); err != nil {
				return err
			}
			return setLogger()
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			cmd.SetOut(os.Stderr)
			_ = cmd.Help()
			return exitCode(exitUsage)
		},
	}
	root.SuggestionsMinimumDistance = 2
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(c.out)
	root.SetErr(os.Stderr)
	root.SetFlagErrorFunc(unknownFlag)
	root.AddGroup(&cobra.Group{ID: "graph", Title: "Building a graph:"},
		&cobra.Group{ID: "read", Title: "Reading a graph:"}, &cobra.Group{ID: "tools", Title: "Tools:"})
	for _, sub := range []struct {
		group string
		cmd   *cobra.Command
	}{
		{"graph", newRunCmd(c)}, {"graph", newPlanCmd(c)}, {"graph", newStatusCmd(c)}, {"graph", newImportCmd(c)},
		{"graph", newForgetCmd(c)},
		{"read", newQueryCmd(c)}, {"read", newTimelineCmd(c)}, {"read", newExportCmd(c)}, {"read", newEvalCmd(c)},
		{"read", newDiffCmd(c)},
		{"tools", newLLMStubCmd(c)}, {"tools", newVersionCmd(c)},
	} {
		sub.cmd.GroupID = sub.group
		root.AddCommand(sub.cmd)
	}
	root.AddCommand(newJobKeysCmd())
	root.SetHelpCommandGroupID("tools")
	root.SetCompletionCommandGroupID("tools")
	return root
}

// unknownCommand is the error of a command line whose first word names no command, with the
// commands it most likely meant.
func unknownCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		return fmt.Errorf("unknown command %q (did you mean %s?)", args[0], strings.Join(s, " or "))
	}
	return fmt.Errorf("unknown command %q", args[0])
}

// unknownFlag adds to cobra's error of an unknown flag the flag of the command it most likely
// meant ("unknown flag: --chekpoint (did you mean --checkpoint?)"); other flag errors pass.
func unknownFlag(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if near := suggestions.Near(name, names); near != "" {
		return fmt.Errorf("%w (did you mean --%s?)", err, near)
	}
	return err
}

// nArgs requires exactly n positional arguments, named by what in the error.
func nArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return fmt.Errorf("want %s, got %d argument(s)", what, len(args))
		}
		return nil
	}
}

// jobArg is the positional argument of the commands that read one job.
var jobArg = nArgs(1, "exactly one JOB.yaml")

// completeJob completes a job file argument.
func completeJob(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
}

// fixedCompletion completes a flag from a fixed list of values.
func fixedCompletion(values ...string) cobra.CompletionFunc {
	return cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)
}
