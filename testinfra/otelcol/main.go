// Command backfill-otelcol is an OpenTelemetry Collector with the components backfill's tests
// need and nothing else: the core distribution's OTLP receiver (gRPC and HTTP) and the
// contrib distribution's file exporter, which writes what the receiver got as OTLP JSON lines
// (tests/otel reads them). scripts/otelcol.sh builds it from this module (its go.sum pins
// every module) and runs it with the configuration it writes.
package main

import (
	"os"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

func main() {
	set := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "backfill-otelcol", Description: "OTLP receiver for backfill's tests", Version: "test"},
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory(), envprovider.NewFactory()},
			},
		},
	}
	if err := otelcol.NewCommand(set).Execute(); err != nil {
		os.Exit(1) // cobra printed the error
	}
}

// factories are the collector's components: the OTLP receiver and the file exporter.
func factories() (otelcol.Factories, error) {
	f := otelcol.Factories{Telemetry: otelconftelemetry.NewFactory()}
	var err error
	if f.Receivers, err = otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory()); err != nil {
		return otelcol.Factories{}, err
	}
	if f.Exporters, err = otelcol.MakeFactoryMap[exporter.Factory](fileexporter.NewFactory()); err != nil {
		return otelcol.Factories{}, err
	}
	return f, nil
}
