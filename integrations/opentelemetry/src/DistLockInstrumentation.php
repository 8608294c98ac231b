<?php

declare(strict_types=1);

namespace DistLock\OpenTelemetry;

use OpenTelemetry\API\Common\Time\Clock;
use OpenTelemetry\API\Metrics\MeterProviderInterface;
use OpenTelemetry\API\Trace\TracerProviderInterface;

/**
 * OpenTelemetry traces and metrics of the distlock extension's lock
 * operations, through the extension's observer (DistLock::addObserver).
 *
 * Two ways in, as OpenTelemetry's PHP instrumentations have:
 *  - automatic: Composer's autoloader runs _register.php, which calls
 *    registerFromEnvironment() unless OTEL_PHP_DISABLED_INSTRUMENTATIONS
 *    names "distlock" (or is "all"), OTEL_SDK_DISABLED is true, or the
 *    extension is not loaded; it records to the global providers (Globals);
 *  - by hand: DistLockInstrumentation::register($tracerProvider,
 *    $meterProvider, $options). A hand registration takes over from the
 *    automatic one (it is removed), so that installing the package and also
 *    registering it by hand does not record everything twice.
 *
 * One observer per registration; it lives for the PHP request (the
 * extension frees observers at request end; a long-running worker keeps it
 * across its logical requests). unregister() removes it.
 */
final class DistLockInstrumentation
{
    /** The name OTEL_PHP_DISABLED_INSTRUMENTATIONS uses for this instrumentation. */
    public const NAME = 'distlock';

    private static ?self $auto = null;

    private bool $registered = true;

    private function __construct(private readonly \Closure $observer)
    {
    }

    /**
     * Registers an observer that turns every distlock event into spans and
     * metrics.
     *
     * @param TracerProviderInterface|null $tracerProvider where spans go; null: the global provider, looked up at each event
     * @param MeterProviderInterface|null  $meterProvider  where metrics go; null: the global provider, looked up at each event
     * @param array<string, mixed>         $options        lock_names ('none' | 'spans' | 'all'), traces (bool), metrics (bool):
     *                                                     see Options
     * @return self the registration (unregister() removes it)
     * @throws \ValueError  an unknown option or value (the message names the option)
     * @throws \TypeError   an option of the wrong type
     * @throws \LogicException the distlock extension is not loaded, or has no observer API (DistLock::addObserver)
     */
    public static function register(
        ?TracerProviderInterface $tracerProvider = null,
        ?MeterProviderInterface $meterProvider = null,
        array $options = [],
    ): self {
        $registration = self::create($tracerProvider, $meterProvider, Options::fromArray($options));
        if (self::$auto !== null) {
            self::$auto->unregister();
            self::$auto = null;
        }

        return $registration;
    }

    /**
     * The automatic registration (called by _register.php): the global
     * providers, options from the environment (see Options::fromEnvironment).
     * Registers once: a second call returns the first registration.
     *
     * @return self the registration
     * @throws \LogicException the distlock extension is not loaded, or has no observer API
     */
    public static function registerFromEnvironment(): self
    {
        return self::$auto ??= self::create(null, null, Options::fromEnvironment());
    }

    /** The automatic registration, when there is one (it is gone after unregister() or a hand registration). */
    public static function automatic(): ?self
    {
        return self::$auto;
    }

    /**
     * Removes this registration's observer.
     *
     * @return bool true when it was registered and is now removed; false when it was
     *              already removed (by an earlier call, or by the extension at request end)
     */
    public function unregister(): bool
    {
        if (self::$auto === $this) {
            self::$auto = null;
        }
        if (!$this->registered) {
            return false;
        }
        $this->registered = false;

        return \DistLock::removeObserver($this->observer);
    }

    /** The observer callable registered with DistLock::addObserver (for tests and benchmarks). */
    public function observer(): \Closure
    {
        return $this->observer;
    }

    private static function create(?TracerProviderInterface $tracerProvider, ?MeterProviderInterface $meterProvider, Options $options): self
    {
        if (!extension_loaded('distlock')) {
            throw new \LogicException('DistLockInstrumentation: the distlock extension is not loaded');
        }
        if (!method_exists(\DistLock::class, 'addObserver')) {
            throw new \LogicException('DistLockInstrumentation: this distlock extension (' . phpversion('distlock')
                . ') has no observer API (DistLock::addObserver); upgrade the extension');
        }
        $providers = new Providers($tracerProvider, $meterProvider);
        $servers = new ServerAttributes();
        // Event times are on hrtime's monotonic clock; spans want epoch ns.
        // One offset, taken now, as the API's SystemClock does for the SDK's
        // own spans: the two agree, and a wall-clock step later does not bend
        // a span.
        $offset = Clock::getDefault()->now() - hrtime(true);
        $spans = $options->traces ? new SpanRecorder($providers, $servers, $options->spanLockNames, $offset) : null;
        $metrics = $options->metrics ? new MetricRecorder($providers, $servers, $options->metricLockNames) : null;

        $observer = match (true) {
            $spans !== null && $metrics !== null => static function (\DistLock\Event $e) use ($spans, $metrics): void {
                $spans->record($e);
                $metrics->record($e);
            },
            $spans !== null => static function (\DistLock\Event $e) use ($spans): void {
                $spans->record($e);
            },
            $metrics !== null => static function (\DistLock\Event $e) use ($metrics): void {
                $metrics->record($e);
            },
            default => static function (\DistLock\Event $e): void {
            },
        };
        \DistLock::addObserver($observer);

        return new self($observer);
    }
}
