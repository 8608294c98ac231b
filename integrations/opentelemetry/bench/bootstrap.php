<?php

declare(strict_types=1);

/*
 * The OpenTelemetry SDK row of the observer bench:
 *   bench/observer-run --bootstrap=integrations/opentelemetry/bench/bootstrap.php
 * distlock/opentelemetry registered by hand on the SDK as an application
 * would run it in production, minus the network: spans through a
 * BatchSpanProcessor (the SDK's production processor) to an exporter that
 * drops them, metrics through an ExportingReader to the SDK's no-op metric
 * exporter (aggregated in memory as always; never exported during the run),
 * always-on sampling, inside an active request span (so every lock span has
 * a parent, as in a request). Lock names left out (the default).
 *
 * Autoloader: DISTLOCK_OTEL_AUTOLOAD, else what setup.sh (beside this file)
 * prints (it is run when the variable is unset).
 */

use DistLock\OpenTelemetry\DistLockInstrumentation;
use OpenTelemetry\API\Common\Time\Clock;
use OpenTelemetry\SDK\Common\Future\CancellationInterface;
use OpenTelemetry\SDK\Common\Future\CompletedFuture;
use OpenTelemetry\SDK\Common\Future\FutureInterface;
use OpenTelemetry\SDK\Metrics\MeterProvider;
use OpenTelemetry\SDK\Metrics\MetricExporter\NoopMetricExporter;
use OpenTelemetry\SDK\Metrics\MetricReader\ExportingReader;
use OpenTelemetry\SDK\Trace\SpanExporterInterface;
use OpenTelemetry\SDK\Trace\SpanProcessor\BatchSpanProcessor;
use OpenTelemetry\SDK\Trace\TracerProvider;

(static function (): void {
    // The bench runs PHP with -n, where zend.assertions is 1 (development):
    // the SDK's assert()s would run, which production's php.ini (-1) never
    // does. 0 is the nearest a running script can get.
    ini_set('zend.assertions', '0');
    $autoload = getenv('DISTLOCK_OTEL_AUTOLOAD');
    if ($autoload === false || $autoload === '') {
        $autoload = trim((string) shell_exec('bash ' . escapeshellarg(__DIR__ . '/setup.sh')));
    }
    if ($autoload === '' || !is_file($autoload)) {
        throw new RuntimeException('bench/otel/bootstrap.php: no autoloader (run setup.sh beside this file, or set DISTLOCK_OTEL_AUTOLOAD)');
    }
    require_once $autoload;

    $drop = new class () implements SpanExporterInterface {
        public function export(iterable $batch, ?CancellationInterface $cancellation = null): FutureInterface
        {
            return new CompletedFuture(true);
        }

        public function shutdown(?CancellationInterface $cancellation = null): bool
        {
            return true;
        }

        public function forceFlush(?CancellationInterface $cancellation = null): bool
        {
            return true;
        }
    };
    $tracerProvider = new TracerProvider(new BatchSpanProcessor($drop, Clock::getDefault()));
    $meterProvider = MeterProvider::builder()->addReader(new ExportingReader(new NoopMetricExporter()))->build();
    DistLockInstrumentation::register($tracerProvider, $meterProvider);

    $request = $tracerProvider->getTracer('bench')->spanBuilder('bench request')->startSpan();
    $scope = $request->activate();
    register_shutdown_function(static function () use ($tracerProvider, $meterProvider, $request, $scope): void {
        $scope->detach();
        $request->end();
        $tracerProvider->shutdown();
        $meterProvider->shutdown();
    });
})();
