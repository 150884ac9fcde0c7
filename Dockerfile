FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY . .
RUN pip install . \
    && useradd --system --no-create-home boneyard
USER boneyard

ENV BIND=0.0.0.0:8000
EXPOSE 8000
# docker-compose.yml sets the command (migrate, then serve); this is the same.
CMD ["sh", "-c", "alembic upgrade head && exec gunicorn -c gunicorn.conf.py wsgi:app"]
