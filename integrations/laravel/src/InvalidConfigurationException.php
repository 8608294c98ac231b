<?php

declare(strict_types=1);

namespace DistLock\Laravel;

/**
 * The distlock client cannot be built from the configuration. The message
 * names the setting (config key or environment variable), never its value.
 */
final class InvalidConfigurationException extends \InvalidArgumentException
{
}
