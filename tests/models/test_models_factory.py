"""create_chat_model / describe_model: offline by default, any LangChain provider when set."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_anthropic import ChatAnthropic
from langchain_ollama import ChatOllama
from langchain_openai import ChatOpenAI

from interlock.models import (
    OFFLINE_DISPLAY_NAME,
    OfflineChatModel,
    create_chat_model,
    describe_model,
    model_kwargs_for,
    parse_model_spec,
)
from interlock.settings import Settings


def _settings(**values: Any) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def test_no_model_setting_gives_the_offline_model_with_its_delays() -> None:
    model = create_chat_model(
        _settings(offline_token_delay_s=0.01, offline_first_token_delay_s=0.2)
    )

    assert isinstance(model, OfflineChatModel)
    assert model.token_delay_s == 0.01
    assert model.first_token_delay_s == 0.2


def test_describe_model_labels_the_offline_model() -> None:
    assert describe_model(_settings()) == {"name": OFFLINE_DISPLAY_NAME, "offline": True}
    assert "offline" in OFFLINE_DISPLAY_NAME


def test_describe_model_names_a_configured_model() -> None:
    described = describe_model(_settings(model="openai:gpt-4o-mini"))

    assert described == {"name": "openai:gpt-4o-mini", "offline": False}


@pytest.mark.parametrize("spec", ["gpt-4o-mini", "openai:", ":gpt-4o", "open ai:gpt", "  "])
def test_a_model_without_provider_prefix_is_a_clear_error(spec: str) -> None:
    with pytest.raises(ValueError, match="provider:model"):
        create_chat_model(_settings(model=spec))


def test_model_names_keep_their_own_colons() -> None:
    assert parse_model_spec("ollama:llama3.1:8b") == ("ollama", "llama3.1:8b")
    assert parse_model_spec("Azure-OpenAI:gpt-4o") == ("azure_openai", "gpt-4o")


def test_an_unknown_provider_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="nosuchprovider"):
        create_chat_model(_settings(model="nosuchprovider:x"))


def test_openai_gets_base_url_key_and_streaming() -> None:
    model = create_chat_model(
        _settings(
            model="openai:gpt-4o-mini", model_base_url="http://127.0.0.1:9/v1", model_api_key="k"
        )
    )

    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "gpt-4o-mini"
    assert model.openai_api_base == "http://127.0.0.1:9/v1"
    assert model.openai_api_key is not None
    assert model.openai_api_key.get_secret_value() == "k"
    assert model.streaming is True


def test_official_openai_streams_usage_but_custom_servers_do_not() -> None:
    official = model_kwargs_for(_settings(model="openai:gpt-4o-mini"), "openai")
    custom = model_kwargs_for(
        _settings(model="openai:m", model_base_url="http://127.0.0.1:9/v1"), "openai"
    )

    assert official == {"streaming": True, "stream_usage": True}
    assert "stream_usage" not in custom


def test_a_custom_openai_server_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    model = create_chat_model(
        _settings(model="openai:local-model", model_base_url="http://127.0.0.1:9/v1")
    )

    assert isinstance(model, ChatOpenAI)


def test_anthropic_gets_key_and_streaming() -> None:
    model = create_chat_model(
        _settings(model="anthropic:claude-sonnet-4-5", model_api_key="sk-ant-test")
    )

    assert isinstance(model, ChatAnthropic)
    assert model.model == "claude-sonnet-4-5"
    assert model.anthropic_api_key.get_secret_value() == "sk-ant-test"
    assert model.streaming is True


def test_ollama_gets_base_url_and_key_as_bearer_header() -> None:
    model = create_chat_model(
        _settings(
            model="ollama:llama3.1:8b", model_base_url="http://127.0.0.1:9", model_api_key="tok"
        )
    )

    assert isinstance(model, ChatOllama)
    assert model.model == "llama3.1:8b"
    assert model.base_url == "http://127.0.0.1:9"
    assert model.client_kwargs == {"headers": {"Authorization": "Bearer tok"}}


def test_openai_api_key_is_read_by_the_settings_and_passed_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    settings = _settings(model="openai:gpt-4o-mini")
    monkeypatch.delenv("OPENAI_API_KEY")  # the factory reads the settings, not the environment

    model = create_chat_model(settings)

    assert settings.openai_api_key is not None
    assert isinstance(model, ChatOpenAI)
    assert model.openai_api_key is not None
    assert model.openai_api_key.get_secret_value() == "sk-from-env"


def test_interlock_model_api_key_wins_over_openai_api_key() -> None:
    kwargs = model_kwargs_for(
        _settings(model="openai:m", model_api_key="mine", openai_api_key="theirs"), "openai"
    )

    assert kwargs["api_key"] == "mine"


def test_a_custom_openai_server_gets_openai_api_key_not_the_placeholder() -> None:
    kwargs = model_kwargs_for(
        _settings(
            model="openai:m", model_base_url="http://127.0.0.1:9/v1", openai_api_key="sk-real"
        ),
        "openai",
    )

    assert kwargs["api_key"] == "sk-real"


def test_an_azure_server_with_openai_api_key_set_is_not_given_the_placeholder() -> None:
    kwargs = model_kwargs_for(
        _settings(
            model="azure_openai:m", model_base_url="http://127.0.0.1:9/", openai_api_key="sk"
        ),
        "azure_openai",
    )

    assert "api_key" not in kwargs  # as before: Azure reads its own variable


def test_official_openai_without_any_key_is_the_providers_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import openai

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    with pytest.raises(openai.OpenAIError, match="OPENAI_API_KEY"):
        create_chat_model(_settings(model="openai:gpt-4o-mini"))
