<?php

declare(strict_types=1);

namespace DistLock\OpenTelemetry;

use OpenTelemetry\API\Globals;
use OpenTelemetry\API\Metrics\MeterInterface;
use OpenTelemetry\API\Metrics\MeterProviderInterface;
use OpenTelemetry\API\Trace\TracerInterface;
use OpenTelemetry\API\Trace\TracerProviderInterface;
use OpenTelemetry\SemConv\Version;

/**
 * Where the tracer and the meter come from: the providers given to
 * register(), or, when none was given (the auto-registration), the global
 * ones, looked up at each event. The global providers are often set after
 * Composer's autoloader ran _register.php (the SDK's own autoloader, a
 * framework bundle, a test that swaps them), so they cannot be taken once
 * at registration; the tracer and the meter are made again only when the
 * provider changed (the same idea as the API's CachedInstrumentation).
 */
final class Providers
{
    /** The instrumentation scope's name: the Composer package's. */
    public const SCOPE = 'distlock/opentelemetry';

    private ?TracerProviderInterface $tracerProviderSeen = null;
    private ?TracerInterface $tracer = null;
    private ?MeterProviderInterface $meterProviderSeen = null;
    private ?MeterInterface $meter = null;
    private readonly string $schemaUrl;

    public function __construct(
        private readonly ?TracerProviderInterface $tracerProvider,
        private readonly ?MeterProviderInterface $meterProvider,
    ) {
        // The oldest conventions the package accepts (sem-conv ^1.38): the
        // names it writes are those of this version.
        $this->schemaUrl = Version::VERSION_1_38_0->url();
    }

    public function tracer(): TracerInterface
    {
        $provider = $this->tracerProvider ?? Globals::tracerProvider();
        if ($provider !== $this->tracerProviderSeen || $this->tracer === null) {
            $this->tracerProviderSeen = $provider;
            $this->tracer = $provider->getTracer(self::SCOPE, self::version(), $this->schemaUrl);
        }

        return $this->tracer;
    }

    /** @return array{MeterInterface, bool} the meter, and true when it is not the one of the previous call */
    public function meter(): array
    {
        $provider = $this->meterProvider ?? Globals::meterProvider();
        if ($provider !== $this->meterProviderSeen || $this->meter === null) {
            $this->meterProviderSeen = $provider;
            $this->meter = $provider->getMeter(self::SCOPE, self::version(), $this->schemaUrl);

            return [$this->meter, true];
        }

        return [$this->meter, false];
    }

    /** The package's installed version (Composer's runtime API), or null when it cannot be told. */
    private static function version(): ?string
    {
        static $version = false;
        if ($version === false) {
            $version = null;
            if (class_exists(\Composer\InstalledVersions::class) && \Composer\InstalledVersions::isInstalled(self::SCOPE)) {
                $version = \Composer\InstalledVersions::getPrettyVersion(self::SCOPE);
            }
        }

        return $version;
    }
}
